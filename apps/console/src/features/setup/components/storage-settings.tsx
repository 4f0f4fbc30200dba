import { Button, Checkbox, Group, Input, Skeleton, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, placeProblems, type FormErrors } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormGeneralErrors, inputLabelHeight } from '../../../components/form-fields';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { useDasConfig, useSaveStorageTypes, useSetDasConfig, useStorageTypes } from '../api/storage-provider';
import { StorageProviderForm } from './storage-provider-form';

const noErrors: FormErrors = { fields: {}, general: [] };

type StorageTypeField = 'name' | 'path' | 'configured';

/**
 * The property of the saved type a problem names: the form sends one type, so the server names its
 * fields as those of the list's first entry (`data[0].path`).
 */
function storageTypeField(field: string | undefined): StorageTypeField | undefined {
  const match = /^data\[0\]\.(name|path|configured)$/.exec(field ?? '');
  return match?.[1] as StorageTypeField | undefined;
}

/** Adds a storage type or changes one (by name). */
function StorageTypeForm() {
  const { t } = useTranslation();
  const save = useSaveStorageTypes();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [configured, setConfigured] = useState(true);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors(noErrors);
    save.mutate([{ name: name.trim(), path: path.trim(), configured }], {
      onSuccess: () => {
        alerts.success(t('storage.types.saved', { name: name.trim() }));
        setName('');
        setPath('');
        setConfigured(true);
      },
      onError: (error) =>
        setErrors(
          placeProblems(
            t,
            error,
            (problem) => {
              const field = storageTypeField(problem.field);
              return field === 'configured' ? undefined : field;
            },
            // the checkbox shows no message of its own: a problem about it is said above, by its label
            {
              labels: (field) => {
                const named = storageTypeField(field);
                return named ? t(`storage.types.${named}`) : undefined;
              },
            },
          ),
        ),
    });
  };
  return (
    <form onSubmit={submit} aria-label={t('storage.types.formLabel')}>
      <Stack gap="xs">
        <FormGeneralErrors errors={errors} testId="storage-type-error" />
        <Group align="flex-start">
          <TextInput
            label={t('storage.types.name')}
            required
            value={name}
            error={errors.fields.name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <TextInput
            label={t('storage.types.path')}
            required
            value={path}
            error={errors.fields.path}
            onChange={(event) => setPath(event.currentTarget.value)}
          />
          <Checkbox
            label={t('storage.types.configured')}
            checked={configured}
            onChange={(event) => setConfigured(event.currentTarget.checked)}
            mt={`calc(${inputLabelHeight} + 8px)`}
          />
          <Button type="submit" variant="default" loading={save.isPending} mt={inputLabelHeight}>
            {t('storage.types.save')}
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          {t('storage.types.hint')}
        </Text>
      </Stack>
    </form>
  );
}

/** The storage types the server keeps files by (`storage/{type}/…`). */
function StorageTypes() {
  const { t } = useTranslation();
  const types = useStorageTypes();
  return (
    <Stack gap="sm">
      {types.error ? <ErrorAlert>{apiErrorMessage(t, types.error)}</ErrorAlert> : null}
      <DataTable
        compact
        testId="storage-types"
        minWidth={420}
        busy={types.isFetching}
        caption={t('storage.types.caption', { count: types.data?.data.length ?? 0 })}
        columns={[t('storage.types.name'), t('storage.types.path'), t('storage.types.configured')]}
        empty={types.data?.data.length === 0 ? t('storage.types.empty') : null}
      >
        {(types.data?.data ?? []).map((type) => (
          <Table.Tr key={type.name} data-storage-type={type.name}>
            <Table.Td>{type.name}</Table.Td>
            <Table.Td>{type.path}</Table.Td>
            <Table.Td>{type.configured ? t('storage.types.yes') : t('storage.types.no')}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <StorageTypeForm />
    </Stack>
  );
}

/** The design archive service switch (`admin/das`). */
function DasSwitch() {
  const { t } = useTranslation();
  const das = useDasConfig();
  const setDas = useSetDasConfig();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const errorId = useId();
  if (das.error) return <ErrorAlert>{apiErrorMessage(t, das.error)}</ErrorAlert>;
  if (!das.data) return <Skeleton h={24} w={200} />;
  return (
    <Stack gap="xs">
      <Switch
        label={t('storage.das.enabled')}
        checked={das.data.enabled}
        disabled={setDas.isPending}
        onChange={(event) => {
          setErrors(noErrors);
          setDas.mutate(event.currentTarget.checked, {
            onError: (error) =>
              setErrors(placeProblems(t, error, (problem) => (problem.field === 'enabled' ? 'enabled' : undefined))),
          });
        }}
        // a Switch says its error inside its label: said beside it instead, describing the switch
        error={errors.fields.enabled !== undefined}
        aria-invalid={errors.fields.enabled !== undefined}
        aria-describedby={errors.fields.enabled === undefined ? undefined : errorId}
        data-testid="das-enabled"
      />
      {errors.fields.enabled === undefined ? null : <Input.Error id={errorId}>{errors.fields.enabled}</Input.Error>}
      <Text size="xs" c="dimmed">
        {t('storage.das.hint')}
      </Text>
      <FormGeneralErrors errors={errors} testId="das-error" />
    </Stack>
  );
}

/** Storage settings: the provider (with the move's progress), the storage types and the DAS switch. */
export function StorageSettings() {
  const { t } = useTranslation();
  return (
    <>
      <Section id="storage-provider" title={t('storage.provider.heading')}>
        <StorageProviderForm />
      </Section>
      <Section id="storage-type-list" title={t('storage.types.heading')}>
        <StorageTypes />
      </Section>
      <Section id="das-settings" title={t('storage.das.heading')}>
        <DasSwitch />
      </Section>
    </>
  );
}
