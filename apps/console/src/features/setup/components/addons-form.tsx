import { Button, Group, Skeleton, Stack, Switch, Text } from '@mantine/core';
import type { TAddon } from '@manifold/contract';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { placeProblems, type FormErrors } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { alerts } from '../../../lib/alerts';
import { useAddons, useSaveAddons } from '../api/addons';

const noErrors: FormErrors = { fields: {}, general: [] };

/** The addons and their switches; a refused switch shows its reason under it (`data.N.name`). */
export function AddonsForm() {
  const { t } = useTranslation();
  const addons = useAddons();
  const save = useSaveAddons();
  const [values, setValues] = useState<TAddon[]>([]);
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  useEffect(() => {
    if (addons.data) setValues(addons.data.data);
  }, [addons.data]);

  if (addons.error) return <ErrorAlert>{placeProblems(t, addons.error, () => undefined).general.join(' ')}</ErrorAlert>;
  if (!addons.data) return <Skeleton h={160} />;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    save.mutate(values, {
      onSuccess: () => alerts.success(t('settings.addons.saved')),
      onError: (error) =>
        setErrors(
          placeProblems(t, error, (problem) => {
            const index = /^data\.(\d+)\./.exec(problem.field ?? '')?.[1];
            return index === undefined ? undefined : values[Number(index)]?.name;
          }),
        ),
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('settings.addons.heading')} data-testid="addons-form">
      <Stack>
        {errors.general.length > 0 ? <ErrorAlert>{errors.general.join(' ')}</ErrorAlert> : null}
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
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
