import { Anchor, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../../components/data-table';
import { useDateTimeFormat } from '../../../lib/format';
import { useBuildList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { TraceListScreen } from '../components/trace-list-screen';
import { BuildStateBadge, ShortId } from '../components/trace-badges';
import { filterField } from '../../../components/id-inputs';

const filters = ['dsiId'] as const;

/** Builds (the parts of one job of one machine), newest first; filtered by design. */
export function BuildsRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const list = useListParams(filters);
  const { state } = list;
  const builds = useBuildList(state);
  const time = (value: string | null) => (value ? <time dateTime={value}>{format(value)}</time> : '—');

  return (
    <TraceListScreen
      title={t('trace.builds.title')}
      description={t('trace.builds.description')}
      list={list}
      textFilters={[filterField('dsiId', t('trace.filters.dsiId'))]}
      result={builds}
    >
      <DataTable
        testId="builds-table"
        minWidth={960}
        busy={builds.isFetching}
        caption={t('trace.builds.caption', { total: builds.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('trace.builds.job'),
          t('trace.builds.machine'),
          t('trace.builds.order'),
          t('trace.builds.state'),
          t('trace.builds.quantity'),
          t('trace.builds.startedAt'),
          t('trace.builds.finishedAt'),
        ]}
        empty={builds.data?.data.length === 0 ? t(list.narrowed ? 'trace.builds.noMatch' : 'trace.builds.empty') : null}
      >
        {(builds.data?.data ?? []).map((build) => (
          <Table.Tr key={build.buildId} data-build-id={build.buildId} data-job-id={build.jobId}>
            <Table.Td>
              <Anchor component={Link} to={`/builds/${build.buildId}`} c="var(--manifold-link)">
                {build.jobId}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${build.deviceId}`} c="var(--manifold-link)">
                <ShortId id={build.deviceId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/orders/${build.orderId}`} c="var(--manifold-link)">
                <ShortId id={build.orderId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              <BuildStateBadge state={build.state} />
            </Table.Td>
            <Table.Td>{build.quantity}</Table.Td>
            <Table.Td>{time(build.startedAt)}</Table.Td>
            <Table.Td>{time(build.finishedAt)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </TraceListScreen>
  );
}
