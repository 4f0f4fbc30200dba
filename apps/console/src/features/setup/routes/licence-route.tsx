import { useTranslation } from 'react-i18next';
import { LicencePanel } from '../components/licence-panel';
import { SettingsPageFrame } from './settings-page-frame';

export function LicenceRoute() {
  const { t } = useTranslation();
  return (
    <SettingsPageFrame id="licence" title={t('settings.licence.heading')} intro={t('settings.licence.intro')}>
      <LicencePanel />
    </SettingsPageFrame>
  );
}
