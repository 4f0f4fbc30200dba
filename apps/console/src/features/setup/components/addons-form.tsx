import { Switch, Text } from '@mantine/core';
import type { TAddon } from '@manifold/contract';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems } from '../../../components/api-error-message';
import { useAddons, useSaveAddons } from '../api/addons';
import { SettingsForm, useSettingsSave } from './settings-form';

/** The addons and their switches; a refused switch shows its reason under it (`data.N.name`). */
export function AddonsForm() {
  const { t } = useTranslation();
  const addons = useAddons();
  const save = useSaveAddons();
  const [values, setValues] = useState<TAddon[]>([]);
  const { errors, submit } = useSettingsSave(save, t('settings.addons.saved'), (error) =>
    placeProblems(t, error, (problem) => {
      const index = /^data\.(\d+)\./.exec(problem.field ?? '')?.[1];
      return index === undefined ? undefined : values[Number(index)]?.name;
    }),
  );

  useEffect(() => {
    if (addons.data) setValues(addons.data.data);
  }, [addons.data]);

  return (
    <SettingsForm
      loaded={addons}
      skeletonHeight={160}
      label={t('settings.addons.heading')}
      testId="addons-form"
      errors={errors}
      saving={save.isPending}
      onSubmit={() => submit(values)}
    >
      {values.map((addon, index) => (
        <Switch
          key={addon.name}
          label={t(`settings.addons.names.${addon.name}`, { defaultValue: addon.name })}
          description={t(`settings.addons.descriptions.${addon.name}`, { defaultValue: '' })}
          checked={addon.enabled}
          error={errors.fields[addon.name]}
          onChange={(event) => {
            const enabled = event.currentTarget.checked;
            setValues((previous) => previous.map((entry, at) => (at === index ? { ...entry, enabled } : entry)));
          }}
        />
      ))}
      <Text size="sm" c="dimmed">
        {t('settings.addons.note')}
      </Text>
    </SettingsForm>
  );
}
