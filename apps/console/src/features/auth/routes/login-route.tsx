import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { useConsoleConfig, useConsoleConfigRefresh } from '../../../lib/console-config';
import { isLoginReason } from '../../../lib/login-redirect';
import { resolveRedirectTarget } from '../../../lib/redirect-target';
import { useLogin } from '../api/login';
import { ErrorAlert } from '../../../components/error-alert';

/** /login: the entry of the console; shows why the user was sent here and returns them after. */
export function LoginRoute() {
  const { t } = useTranslation();
  useConsoleConfigRefresh();
  const { siteName } = useConsoleConfig();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const reason = params.get('reason');
  const redirectParam = params.get('redirect');
  const target = resolveRedirectTarget(redirectParam);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const loginMutation = useLogin();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    loginMutation.mutate(
      { username, password },
      {
        onSuccess: () => {
          if (target === 'unsafe') {
            alerts.error(t('apiErrors.unsafeRedirect'));
            void navigate('/', { replace: true });
          } else if (target.kind === 'internal') {
            void navigate(target.path, { replace: true });
          } else {
            window.location.assign(target.url);
          }
        },
      },
    );
  };

  return (
    <Center component="main" mih="100vh" p="md">
      <PageHead title={t('login.title')} description={t('login.description')} />
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={submit} noValidate aria-labelledby="login-heading">
          <Stack>
            <div>
              <Text c="dimmed" size="sm" fw={600}>
                {siteName}
              </Text>
              <Title order={1} id="login-heading" size="h2">
                {t('login.heading')}
              </Title>
            </div>
            {isLoginReason(reason) ? (
              <Alert color="yellow" variant="light" data-testid="login-reason">
                <Text size="sm">{t(`login.reasons.${reason}`)}</Text>
              </Alert>
            ) : null}
            {target === 'unsafe' ? (
              <Alert color="red" variant="light" data-testid="unsafe-redirect">
                <Text size="sm">{t('apiErrors.unsafeRedirect')}</Text>
              </Alert>
            ) : null}
            {loginMutation.error ? (
              <ErrorAlert data-testid="login-error">{apiErrorMessage(t, loginMutation.error)}</ErrorAlert>
            ) : null}
            <TextInput
              label={t('login.username')}
              name="username"
              autoComplete="username"
              required
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
            />
            <PasswordInput
              label={t('login.password')}
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <Button type="submit" loading={loginMutation.isPending} fullWidth>
              {t('login.submit')}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
