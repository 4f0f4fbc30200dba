import { NumberInput, Switch } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems } from '../../../components/api-error-message';
import { useEventConfiguration, useSaveEventConfiguration } from '../api/event-configuration';
import { SettingsForm, useSettingsSave } from './settings-form';

const hour = 3600;

/** `admin/event`: forwarding of events to the Trace instances on or off, and how long each is tried. */
export function EventForwardingForm() {
  const { t } = useTranslation();
  const configuration = useEventConfiguration();
  const save = useSaveEventConfiguration();
  const [enabled, setEnabled] = useState(false);
  const [hours, setHours] = useState<number | string>('');
  const { errors, setErrors, clearErrors, submit } = useSettingsSave(save, t('settings.events.saved'), (error) =>
    placeProblems(t, error, (problem) => problem.field?.replace(/^body\./, '')),
  );

  useEffect(() => {
    if (!configuration.data) return;
    setEnabled(configuration.data.enabled);
    setHours(Math.round((configuration.data.timeout / hour) * 100) / 100);
  }, [configuration.data]);

  const onSubmit = () => {
    clearErrors();
    const timeout = typeof hours === 'number' ? Math.round(hours * hour) : Number.NaN;
    if (!Number.isFinite(timeout) || timeout < 1) {
      setErrors({ fields: { timeout: t('settings.events.timeoutInvalid') }, general: [] });
      return;
    }
    submit({ enabled, timeout });
  };

  return (
    <SettingsForm
      loaded={configuration}
      skeletonHeight={140}
      label={t('settings.events.heading')}
      testId="event-forwarding-form"
      errors={errors}
      saving={save.isPending}
      onSubmit={onSubmit}
    >
      <Switch
        label={t('settings.events.enabled')}
        description={t('settings.events.enabledHint')}
        checked={enabled}
        error={errors.fields.enabled}
        onChange={(event) => setEnabled(event.currentTarget.checked)}
      />
      <NumberInput
        label={t('settings.events.timeout')}
        description={t('settings.events.timeoutHint')}
        min={0.01}
        max={365 * 24}
        decimalScale={2}
        value={hours}
        onChange={setHours}
        error={errors.fields.timeout}
      />
    </SettingsForm>
  );
}
