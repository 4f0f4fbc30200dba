import { Anchor, Center, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { resolveRedirectTarget } from '../../../lib/redirect-target';
import { takeSsoRedirect, useFinishSso, type SsoFinish } from '../api/sso-login';

/**
 * /login/oidc and /login/saml/:id: where the identity provider sends the browser back. OpenID
 * Connect returns `code` and `state` in the query; SAML's response arrives in the fragment (the
 * server's assertion consumer puts it there, so it never reaches a server log).
 */
export function SsoCallbackRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { id } = useParams();
  const [params] = useSearchParams();
  const finish = useFinishSso();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    let input: SsoFinish | null = null;
    let redirect: string | null;
    if (id) {
      const fragment = new URLSearchParams(window.location.hash.slice(1));
      window.history.replaceState(null, '', window.location.pathname);
      const samlResponse = fragment.get('samlResponse');
      redirect = fragment.get('RelayState');
      if (samlResponse) input = { kind: 'saml', id, samlResponse };
    } else {
      redirect = takeSsoRedirect();
      const code = params.get('code');
      const state = params.get('state');
      if (code && state)
        input = { kind: 'oidc', code, state, redirectUri: `${window.location.origin}${window.location.pathname}` };
    }
    if (!input) return;
    finish.mutate(input, {
      onSuccess: () => {
        const target = resolveRedirectTarget(redirect);
        if (target === 'unsafe') {
          alerts.error(t('apiErrors.unsafeRedirect'));
          void navigate('/', { replace: true });
        } else if (target.kind === 'internal') void navigate(target.path, { replace: true });
        else window.location.assign(target.url);
      },
    });
  }, [finish, id, navigate, params, t]);

  const providerError = params.get('error_description') ?? params.get('error');
  return (
    <Center component="main" mih="100vh" p="md">
      <PageHead title={t('login.sso.title')} description={t('login.description')} />
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <Stack>
          <Title order={1} size="h2">
            {t('login.sso.title')}
          </Title>
          {finish.error ? <ErrorAlert data-testid="sso-error">{apiErrorMessage(t, finish.error)}</ErrorAlert> : null}
          {providerError ? (
            <ErrorAlert data-testid="sso-error">{t('login.sso.providerError', { error: providerError })}</ErrorAlert>
          ) : null}
          {finish.isPending ? (
            <Center>
              <Loader role="status" aria-label={t('login.sso.finishing')} />
            </Center>
          ) : null}
          {!finish.isPending && !finish.isSuccess ? (
            <Text size="sm">
              <Anchor component={Link} to="/login">
                {t('login.sso.back')}
              </Anchor>
            </Text>
          ) : null}
        </Stack>
      </Paper>
    </Center>
  );
}
