import { Button, Group, Skeleton, Stack, Switch, TextInput } from '@mantine/core';
import type { TServerConfig } from '@manifold/contract';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { useSaveServerConfig, useServerConfig } from '../api/server-config';

const noErrors: FormErrors = { fields: {}, general: [] };
const fieldNames = ['serverSiteName', 'serverUrl', 'manageEnabled', 'traceEnabled'] as const;
const fieldOfToken: Record<string, string> = { serverSiteNameEmpty: 'serverSiteName', serverUrlInvalid: 'serverUrl' };

const blank: TServerConfig = { serverSiteName: '', serverUrl: '', manageEnabled: true, traceEnabled: true };

/** Site name (the brand), canonical address and the Manage and Trace switches (spec §3 Server config). */
export function ServerSettingsForm() {
  const { t } = useTranslation();
  const server = useServerConfig();
  const save = useSaveServerConfig();
  const { values, setField, reset } = useFields<TServerConfig>(server.data ?? blank);
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  useEffect(() => {
    if (server.data) reset(server.data);
  }, [server.data, reset]);

  if (server.error) return <ErrorAlert>{formErrorsFrom(t, server.error, []).general.join(' ')}</ErrorAlert>;
  if (!server.data) return <Skeleton h={220} />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    save.mutate(values, {
      onSuccess: () => alerts.success(t('settings.server.saved')),
      onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('settings.server.heading')} data-testid="server-settings-form">
      <Stack>
        {errors.general.length > 0 ? <ErrorAlert>{errors.general.join(' ')}</ErrorAlert> : null}
        <TextInput
          label={t('settings.server.siteName')}
          description={t('settings.server.siteNameHint')}
          value={values.serverSiteName}
          maxLength={64}
          required
          error={errors.fields.serverSiteName}
          onChange={(event) => setField('serverSiteName', event.currentTarget.value)}
        />
        <TextInput
          label={t('settings.server.serverUrl')}
          description={t('settings.server.serverUrlHint')}
          value={values.serverUrl}
          type="url"
          required
          error={errors.fields.serverUrl}
          onChange={(event) => setField('serverUrl', event.currentTarget.value)}
        />
        <Switch
          label={t('settings.server.manageEnabled')}
          description={t('settings.server.manageEnabledHint')}
          checked={values.manageEnabled}
          error={errors.fields.manageEnabled}
          onChange={(event) => setField('manageEnabled', event.currentTarget.checked)}
        />
        <Switch
          label={t('settings.server.traceEnabled')}
          description={t('settings.server.traceEnabledHint')}
          checked={values.traceEnabled}
          error={errors.fields.traceEnabled}
          onChange={(event) => setField('traceEnabled', event.currentTarget.checked)}
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
