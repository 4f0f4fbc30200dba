import { Skeleton, Stack, Switch, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { Section } from '../../../components/section';
import { useActionError } from '../../../hooks/use-action-error';
import { useDasConfig, useSetDasConfig, useStorageTypes } from '../api/storage-provider';
import { StorageProviderForm } from './storage-provider-form';

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
        caption={t('storage.types.caption', { total: types.data?.data.length ?? 0 })}
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
