import { Button, Divider, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { rememberSsoRedirect, ssoStartUrl, useSsoLoginOptions } from '../api/sso-login';

/** The identity providers an administrator enabled, as buttons under the login form. */
export function SsoButtons({ redirect }: { redirect: string | null }) {
  const { t } = useTranslation();
  const providers = useSsoLoginOptions();
  if (providers.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="sso-buttons">
      <Divider label={t('login.sso.or')} labelPosition="center" />
      {providers.map((provider) => (
        <Button
          key={provider.id}
          component="a"
          href={ssoStartUrl(provider, redirect)}
          variant="default"
          fullWidth
          onClick={() => rememberSsoRedirect(redirect)}
        >
          {t('login.sso.with', { name: provider.name })}
        </Button>
      ))}
    </Stack>
  );
}
