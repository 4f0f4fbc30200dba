import { Switch, TextInput } from '@mantine/core';
import type { TServerConfig } from '@manifold/contract';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { useSaveServerConfig, useServerConfig } from '../api/server-config';
import { SettingsForm, useSettingsSave } from './settings-form';

const fieldNames = ['serverSiteName', 'serverUrl', 'manageEnabled', 'traceEnabled'] as const;
const fieldOfToken: Record<string, string> = { serverSiteNameEmpty: 'serverSiteName', serverUrlInvalid: 'serverUrl' };

const blank: TServerConfig = { serverSiteName: '', serverUrl: '', manageEnabled: true, traceEnabled: true };

/** Site name (the brand), canonical address and the Manage and Trace switches (spec §3 Server config). */
export function ServerSettingsForm() {
  const { t } = useTranslation();
  const server = useServerConfig();
  const save = useSaveServerConfig();
  const { values, setField, reset } = useFields<TServerConfig>(server.data ?? blank);
  const { errors, submit } = useSettingsSave(save, t('settings.server.saved'), (error) =>
    formErrorsFrom(t, error, fieldNames, fieldOfToken),
  );

  useEffect(() => {
    if (server.data) reset(server.data);
  }, [server.data, reset]);

  return (
    <SettingsForm
      loaded={server}
      skeletonHeight={220}
      label={t('settings.server.heading')}
      testId="server-settings-form"
      errors={errors}
      saving={save.isPending}
      onSubmit={() => submit(values)}
    >
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
    </SettingsForm>
  );
}
