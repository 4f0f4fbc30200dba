import { useTranslation } from 'react-i18next';
import { DatabaseStep } from '../components/database-step';
import { SettingsPageFrame } from './settings-page-frame';

export function DatabaseSettingsRoute() {
  const { t } = useTranslation();
  return (
    <SettingsPageFrame id="database" title={t('setup.database.heading')} intro={t('settings.database.intro')}>
      <DatabaseStep />
    </SettingsPageFrame>
  );
}
