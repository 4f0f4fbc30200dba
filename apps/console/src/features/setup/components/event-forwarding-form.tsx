import { Button, Group, NumberInput, Skeleton, Stack, Switch } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems, type FormErrors } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { alerts } from '../../../lib/alerts';
import { useEventConfiguration, useSaveEventConfiguration } from '../api/event-configuration';

const noErrors: FormErrors = { fields: {}, general: [] };
const hour = 3600;

/** `admin/event`: forwarding of events to the Trace instances on or off, and how long each is tried. */
export function EventForwardingForm() {
  const { t } = useTranslation();
  const configuration = useEventConfiguration();
  const save = useSaveEventConfiguration();
  const [enabled, setEnabled] = useState(false);
  const [hours, setHours] = useState<number | string>('');
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  useEffect(() => {
    if (!configuration.data) return;
    setEnabled(configuration.data.enabled);
    setHours(Math.round((configuration.data.timeout / hour) * 100) / 100);
  }, [configuration.data]);

  if (configuration.error) {
    return <ErrorAlert>{placeProblems(t, configuration.error, () => undefined).general.join(' ')}</ErrorAlert>;
  }
  if (!configuration.data) return <Skeleton h={140} />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    const timeout = typeof hours === 'number' ? Math.round(hours * hour) : Number.NaN;
    if (!Number.isFinite(timeout) || timeout < 1) {
      setErrors({ fields: { timeout: t('settings.events.timeoutInvalid') }, general: [] });
      return;
    }
    save.mutate(
      { enabled, timeout },
      {
        onSuccess: () => alerts.success(t('settings.events.saved')),
        onError: (error) => setErrors(placeProblems(t, error, (problem) => problem.field?.replace(/^body\./, ''))),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('settings.events.heading')} data-testid="event-forwarding-form">
      <Stack>
        {errors.general.length > 0 ? <ErrorAlert>{errors.general.join(' ')}</ErrorAlert> : null}
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
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
