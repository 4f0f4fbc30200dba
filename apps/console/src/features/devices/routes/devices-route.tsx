import { Anchor, Group, SegmentedControl, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { useDateTimeFormat } from '../../../lib/format';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { pageCount } from '../../../lib/paging';
import { useDevices } from '../api/get-devices';
import { DeviceStateBadge } from '../components/device-state-badge';

const pageSize = 10;
const filters = ['all', 'approved', 'notApproved'] as const;
type Filter = (typeof filters)[number];

function isFilter(value: string): value is Filter {
  return filters.some((filter) => filter === value);
}

const approvedOf: Record<Filter, boolean | undefined> = { all: undefined, approved: true, notApproved: false };

/** Registered machines: paged, filtered by approval, with their state. */
export function DevicesRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const paging = usePagedSearch({ filters: ['approval'] });
  const { page, setPage } = paging;
  const chosen = paging.filters.approval ?? 'all';
  const filter: Filter = isFilter(chosen) ? chosen : 'all';
  const devices = useDevices({ pageNum: page, numberOfItems: pageSize, approved: approvedOf[filter] });
  usePageInRange(paging, devices);

  return (
    <Stack gap="lg">
      <ListHeader title={t('devices.title')} description={t('devices.description')} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="device-filter-label">
          {t('devices.filter')}
        </Text>
        <Group>
          <SegmentedControl
            aria-labelledby="device-filter-label"
            value={filter}
            data={filters.map((value) => ({ value, label: t(`devices.filters.${value}`) }))}
            onChange={(value) => {
              if (isFilter(value)) paging.setFilters({ approval: value === 'all' ? undefined : value });
            }}
          />
        </Group>
      </Stack>
      {devices.error ? <ErrorAlert>{apiErrorMessage(t, devices.error)}</ErrorAlert> : null}
      <DataTable
        testId="devices-table"
        minWidth={760}
        busy={devices.isFetching}
        caption={t('devices.caption', { count: devices.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('devices.identity.name'),
          t('devices.identity.manufacturer'),
          t('devices.identity.model'),
          t('devices.identity.serialNumber'),
          t('devices.state'),
          t('devices.registered'),
        ]}
        empty={devices.data?.data.length === 0 ? t(filter === 'all' ? 'devices.empty' : 'devices.noMatch') : null}
      >
        {(devices.data?.data ?? []).map((device) => (
          <Table.Tr key={device.deviceId} data-device-id={device.deviceId} data-machine-id={device.deviceIdentity.id}>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${device.deviceId}`} c="var(--manifold-link)">
                {device.deviceIdentity.name}
                <VisuallyHidden> ({device.deviceIdentity.serialNumber})</VisuallyHidden>
              </Anchor>
            </Table.Td>
            <Table.Td>{device.deviceIdentity.manufacturer}</Table.Td>
            <Table.Td>{device.deviceIdentity.model}</Table.Td>
            <Table.Td>{device.deviceIdentity.serialNumber}</Table.Td>
            <Table.Td>
              <DeviceStateBadge device={device} />
            </Table.Td>
            <Table.Td>
              <time dateTime={device.dateCreated}>{format(device.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(devices.data)} value={page} onChange={setPage} />
    </Stack>
  );
}
