import { useTranslation } from 'react-i18next';
import { ServerSettingsForm } from '../components/server-settings-form';
import { SettingsPageFrame } from './settings-page-frame';

export function ServerSettingsRoute() {
  const { t } = useTranslation();
  return (
    <SettingsPageFrame id="server" title={t('settings.server.heading')} intro={t('settings.server.intro')}>
      <ServerSettingsForm />
    </SettingsPageFrame>
  );
}
