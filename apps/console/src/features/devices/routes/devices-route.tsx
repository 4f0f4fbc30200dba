import { Anchor, Group, SegmentedControl, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { Link } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { useDateTimeFormat } from '../../../lib/format';
import { useDevices } from '../api/get-devices';
import { DeviceStateBadge } from '../components/device-state-badge';
import { ErrorAlert } from '../../../components/error-alert';

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
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState<Filter>('all');
  const devices = useDevices({ pageNum: page, numberOfItems: pageSize, approved: approvedOf[filter] });
  const totalPages = Math.max(1, devices.data?.totalNumOfPages ?? 1);

  return (
    <Stack gap="lg">
      <PageHead title={t('devices.title')} description={t('devices.description')} />
      <Title order={1}>{t('devices.title')}</Title>
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
              if (isFilter(value)) {
                setFilter(value);
                setPage(1);
              }
            }}
          />
        </Group>
      </Stack>
      {devices.error ? <ErrorAlert>{apiErrorMessage(t, devices.error)}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={760}>
        <Table striped highlightOnHover aria-busy={devices.isFetching} data-testid="devices-table">
          <Table.Caption>{t('devices.caption', { total: devices.data?.totalNumOfItems ?? 0 })}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('devices.identity.name')}</Table.Th>
              <Table.Th scope="col">{t('devices.identity.manufacturer')}</Table.Th>
              <Table.Th scope="col">{t('devices.identity.model')}</Table.Th>
              <Table.Th scope="col">{t('devices.identity.serialNumber')}</Table.Th>
              <Table.Th scope="col">{t('devices.state')}</Table.Th>
              <Table.Th scope="col">{t('devices.registered')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(devices.data?.data ?? []).map((device) => (
              <Table.Tr key={device.deviceId} data-device-id={device.deviceId} data-machine-id={device.deviceIdentity.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/devices/${device.deviceId}`} c="green.9">
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
            {devices.data && devices.data.data.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={6}>
                  <Text c="dimmed" ta="center">
                    {t('devices.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination total={totalPages} value={page} onChange={setPage} />
    </Stack>
  );
}
