import { useTranslation } from 'react-i18next';
import { EventForwardingForm } from '../components/event-forwarding-form';
import { SettingsPageFrame } from './settings-page-frame';

export function EventForwardingRoute() {
  const { t } = useTranslation();
  return (
    <SettingsPageFrame id="events" title={t('settings.events.heading')} intro={t('settings.events.intro')}>
      <EventForwardingForm />
    </SettingsPageFrame>
  );
}
