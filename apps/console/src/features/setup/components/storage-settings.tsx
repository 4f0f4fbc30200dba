import { Button, Checkbox, Group, Skeleton, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { Section } from '../../../components/section';
import { useActionError } from '../../../hooks/use-action-error';
import { alerts } from '../../../lib/alerts';
import { useDasConfig, useSaveStorageTypes, useSetDasConfig, useStorageTypes } from '../api/storage-provider';
import { StorageProviderForm } from './storage-provider-form';

/** Adds a storage type or changes one (by name). */
function StorageTypeForm() {
  const { t } = useTranslation();
  const save = useSaveStorageTypes();
  const action = useActionError();
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [configured, setConfigured] = useState(true);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    action.clearError();
    save.mutate([{ name: name.trim(), path: path.trim(), configured }], {
      onSuccess: () => {
        alerts.success(t('storage.types.saved', { name: name.trim() }));
        setName('');
        setPath('');
        setConfigured(true);
      },
      onError: action.onError,
    });
  };
  return (
    <form onSubmit={submit} aria-label={t('storage.types.formLabel')}>
      <Stack gap="xs">
        <Group align="flex-end">
          <TextInput
            label={t('storage.types.name')}
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <TextInput
            label={t('storage.types.path')}
            required
            value={path}
            onChange={(event) => setPath(event.currentTarget.value)}
          />
          <Checkbox
            label={t('storage.types.configured')}
            checked={configured}
            onChange={(event) => setConfigured(event.currentTarget.checked)}
            mb={8}
          />
          <Button type="submit" variant="default" loading={save.isPending}>
            {t('storage.types.save')}
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          {t('storage.types.hint')}
        </Text>
        {action.error ? <ErrorAlert data-testid="storage-type-error">{action.error}</ErrorAlert> : null}
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
  const action = useActionError();
  if (das.error) return <ErrorAlert>{apiErrorMessage(t, das.error)}</ErrorAlert>;
  if (!das.data) return <Skeleton h={24} w={200} />;
  return (
    <Stack gap="xs">
      <Switch
        label={t('storage.das.enabled')}
        checked={das.data.enabled}
        disabled={setDas.isPending}
        onChange={(event) => {
          action.clearError();
          setDas.mutate(event.currentTarget.checked, { onError: action.onError });
        }}
        data-testid="das-enabled"
      />
      <Text size="xs" c="dimmed">
        {t('storage.das.hint')}
      </Text>
      {action.error ? <ErrorAlert>{action.error}</ErrorAlert> : null}
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
