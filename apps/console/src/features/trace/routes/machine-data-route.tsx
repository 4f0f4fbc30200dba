import { Anchor, Button, Code, FileButton, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import type { TDevice } from '@manifold/contract';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { namedErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { SearchSelect, type SearchSource } from '../../../components/search-select';
import { Section } from '../../../components/section';
import { alerts } from '../../../lib/alerts';
import { formatBytes, useDateTimeFormat } from '../../../lib/format';
import { approvedDevicePickerQueryOptions, deviceOption } from '../../../lib/pickers';
import { uploadTray } from '../../../lib/upload-tray';
import { uploadMachineData, useDtlList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { TraceListScreen } from '../components/trace-list-screen';
import { ShortId } from '../components/trace-badges';
import { filterField } from '../../../components/id-inputs';

const filters = ['deviceId', 'orderId'] as const;
const machines: SearchSource<TDevice> = { queryOptions: approvedDevicePickerQueryOptions, toOption: deviceOption };

/** Uploads a machine's data file from the console, through the upload tray. */
function MachineDataUpload() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [deviceId, setDeviceId] = useState<string | null>(null);
  const [authorizationId, setAuthorizationId] = useState('');
  const [error, setError] = useState<string | null>(null);

  const upload = (file: File | null) => {
    if (!file || !deviceId) return;
    setError(null);
    uploadTray.addFiles([file], {
      uploadType: 'machine-data',
      upload: async (chosen, context) => {
        try {
          return await uploadMachineData(
            { deviceId, authorizationId: authorizationId.trim() || undefined, file: chosen },
            context,
          );
        } catch (caught) {
          setError(namedErrorMessage(t, chosen.name, caught));
          throw caught;
        }
      },
      finish: (dtl) => {
        alerts.success(t('trace.machineData.uploaded', { name: dtl.fileName }));
        void queryClient.invalidateQueries({ queryKey: ['trace', 'dtls'] });
      },
    });
  };

  return (
    <Section id="machine-data-upload" title={t('trace.machineData.upload')}>
      <Stack gap="sm">
        <Group align="flex-end">
          <SearchSelect
            source={machines}
            label={t('trace.machineData.machine')}
            withAsterisk
            w={320}
            value={deviceId}
            onChange={setDeviceId}
          />
          <TextInput
            label={t('trace.machineData.authorizationId')}
            description={t('trace.machineData.authorizationHelp')}
            w={360}
            value={authorizationId}
            onChange={(event) => setAuthorizationId(event.currentTarget.value)}
          />
          <FileButton onChange={upload}>
            {(props) => (
              <Button {...props} disabled={!deviceId} leftSection={<IconUpload size={16} aria-hidden />}>
                {t('trace.machineData.chooseFile')}
              </Button>
            )}
          </FileButton>
        </Group>
        {error ? <ErrorAlert>{error}</ErrorAlert> : null}
      </Stack>
    </Section>
  );
}

/** Machine data (DTL records): the files machines sent or users uploaded for them, with their digests. */
export function MachineDataRoute() {
  const { t, i18n } = useTranslation();
  const format = useDateTimeFormat();
  const list = useListParams(filters);
  const dtls = useDtlList(list.state);

  return (
    <TraceListScreen
      title={t('trace.machineData.title')}
      description={t('trace.machineData.description')}
      list={list}
      textFilters={filters.map((name) => filterField(name, t(`trace.machineData.filters.${name}`)))}
      result={dtls}
      controls={<MachineDataUpload />}
    >
      <DataTable
        testId="machine-data-table"
        minWidth={960}
        busy={dtls.isFetching}
        caption={t('trace.machineData.caption', { total: dtls.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('trace.machineData.file'),
          t('trace.machineData.machine'),
          t('trace.machineData.order'),
          t('trace.machineData.size'),
          t('trace.machineData.sha256'),
          t('trace.machineData.received'),
        ]}
        empty={dtls.data?.data.length === 0 ? t(list.narrowed ? 'trace.machineData.noMatch' : 'trace.machineData.empty') : null}
      >
        {(dtls.data?.data ?? []).map((dtl) => (
          <Table.Tr key={dtl.dtlId} data-dtl-id={dtl.dtlId}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{dtl.fileName}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${dtl.deviceId}`} c="var(--manifold-link)">
                <ShortId id={dtl.deviceId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              {dtl.orderId ? (
                <Anchor component={Link} to={`/orders/${dtl.orderId}`} c="var(--manifold-link)">
                  <ShortId id={dtl.orderId} />
                </Anchor>
              ) : (
                '—'
              )}
            </Table.Td>
            <Table.Td>{formatBytes(dtl.size, i18n.language)}</Table.Td>
            <Table.Td>
              <Text size="xs" component="span">
                <Code title={dtl.sha256}>{dtl.sha256.slice(0, 16)}</Code>
              </Text>
            </Table.Td>
            <Table.Td>
              <time dateTime={dtl.dateCreated}>{format(dtl.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </TraceListScreen>
  );
}
