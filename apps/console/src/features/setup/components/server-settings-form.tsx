import { Switch, TextInput } from '@mantine/core';
import type { TServerConfig } from '@manifold/contract';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { useSaveServerConfig, useServerConfig } from '../api/server-config';
import { SettingsForm, useSettingsSave } from './settings-form';

const switches = ['manageEnabled', 'traceEnabled'] as const;
const fieldNames = ['serverSiteName', 'serverUrl', ...switches] as const;
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
      {switches.map((name) => (
        <Switch
          key={name}
          label={t(`settings.server.${name}`)}
          description={t(`settings.server.${name}Hint`)}
          checked={values[name]}
          error={errors.fields[name]}
          onChange={(event) => setField(name, event.currentTarget.checked)}
        />
      ))}
    </SettingsForm>
  );
}
