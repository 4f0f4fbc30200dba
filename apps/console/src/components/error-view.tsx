import { Alert, Anchor, Center, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { asApiFailure, isApiError } from '../lib/api-errors';
import { apiErrorMessage } from './api-error-message';
import { PageHead, pageTitle } from './page-head';

export interface ErrorViewProps {
  code: number;
  message: string;
  /** True when the view is the whole page (no layout around it): it is then the main landmark. */
  standalone?: boolean;
}

/**
 * Error view of spec §2: '{code} - {message}' in a centred danger box; title '{code} — ' + usual
 * title. Below it a link to the home page (loaded afresh: the view may stand where the app could
 * not start its screens).
 */
export function ErrorView({ code, message, standalone = false }: ErrorViewProps) {
  const { t } = useTranslation();
  return (
    <Center mih="60vh" p="md" component={standalone ? 'main' : 'div'}>
      <PageHead documentTitle={`${code} — ${pageTitle()}`} />
      <Stack gap="md" align="center" maw={560} w="100%">
        <Alert color="red" variant="light" role="alert" w="100%">
          <Stack gap="xs" align="center">
            <Text component="h1" fw={700} fz="xl" c="var(--manifold-danger)" data-testid="error-view-text">
              {`${code} - ${message}`}
            </Text>
          </Stack>
        </Alert>
        <Anchor href="/" c="var(--manifold-link)" data-testid="error-view-home">
          {t('errorView.home')}
        </Anchor>
      </Stack>
    </Center>
  );
}

const statusKinds: Record<number, string> = {
  401: 'invalidSession',
  403: 'forbidden',
  404: 'pageNotFound',
};

/**
 * The route error element: unknown routes and screens whose loader or rendering failed. Input the
 * console refused to send (a ZodError) is said as the server's 400 for it (`asApiFailure`).
 */
export function RouteErrorView({ standalone = false }: { standalone?: boolean }) {
  const error = asApiFailure(useRouteError());
  const { t } = useTranslation();
  if (isRouteErrorResponse(error)) {
    const kind = statusKinds[error.status];
    return (
      <ErrorView standalone={standalone} code={error.status} message={kind ? t(`errorView.${kind}`) : t('apiErrors.server')} />
    );
  }
  if (isApiError(error)) {
    const code = error.status === 0 ? (error.kind === 'network' ? 503 : 499) : error.status;
    return <ErrorView standalone={standalone} code={code} message={apiErrorMessage(t, error)} />;
  }
  console.error(error);
  return <ErrorView standalone={standalone} code={500} message={t('apiErrors.server')} />;
}
