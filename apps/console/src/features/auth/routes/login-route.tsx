import { Alert, Button, Center, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { placeProblems } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { useConsoleConfig, useConsoleConfigRefresh } from '../../../lib/console-config';
import { isLoginReason } from '../../../lib/login-redirect';
import { resolveRedirectTarget } from '../../../lib/redirect-target';
import { joinSentences } from '../../../lib/text-join';
import { useLogin } from '../api/login';
import { ErrorAlert } from '../../../components/error-alert';
import { SsoButtons } from '../components/sso-buttons';
import { PasswordInput } from '../../../components/password-input';

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
  // a field left empty is said under it (and marks it invalid); wrong credentials, which say
  // nothing of which one is wrong, and any other failure above the form
  const errors = loginMutation.error
    ? placeProblems(t, loginMutation.error, (problem) =>
        problem.errorToken !== 'passwordIncorrect' && (problem.field === 'username' || problem.field === 'password')
          ? problem.field
          : undefined,
      )
    : null;

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
            {errors && errors.general.length > 0 ? (
              <ErrorAlert data-testid="login-error">{joinSentences(t, errors.general)}</ErrorAlert>
            ) : null}
            <TextInput
              label={t('login.username')}
              name="username"
              autoComplete="username"
              required
              error={errors?.fields.username}
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
            />
            <PasswordInput
              label={t('login.password')}
              name="password"
              autoComplete="current-password"
              required
              error={errors?.fields.password}
              // Mantine's PasswordInput marks only its wrapper invalid, not the input a reader is on
              aria-invalid={Boolean(errors?.fields.password)}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <Button type="submit" loading={loginMutation.isPending} fullWidth>
              {t('login.submit')}
            </Button>
            <SsoButtons redirect={redirectParam} />
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
