import { useTranslation } from 'react-i18next';
import { AddonsForm } from '../components/addons-form';
import { SettingsPageFrame } from './settings-page-frame';

export function AddonsRoute() {
  const { t } = useTranslation();
  return (
    <SettingsPageFrame id="addons" title={t('settings.addons.heading')} intro={t('settings.addons.intro')}>
      <AddonsForm />
    </SettingsPageFrame>
  );
}
