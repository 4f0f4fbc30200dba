import { Anchor, Stack, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { PagingFooter } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { useBuildList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { BuildStateBadge, ShortId } from '../components/trace-badges';

const filters = ['dsiId'] as const;

/** Builds (the parts of one job of one machine), newest first; filtered by design. */
export function BuildsRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const { state, update, page } = useListParams(filters);
  const builds = useBuildList(state);
  const time = (value: string | null) => (value ? <time dateTime={value}>{format(value)}</time> : '—');

  return (
    <Stack gap="lg">
      <ListHeader title={t('trace.builds.title')} description={t('trace.builds.description')} />
      <TextFilterForm
        title={t('trace.filters.title')}
        fields={[{ name: 'dsiId', label: t('trace.filters.dsiId') }]}
        applied={state}
        onApply={update}
        applyLabel={t('trace.filters.apply')}
        clearLabel={t('trace.filters.clear')}
      />
      {builds.error ? <ErrorAlert>{apiErrorMessage(t, builds.error)}</ErrorAlert> : null}
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
        empty={builds.data?.data.length === 0 ? t('trace.builds.empty') : null}
      >
        {(builds.data?.data ?? []).map((build) => (
          <Table.Tr key={build.buildId} data-build-id={build.buildId} data-job-id={build.jobId}>
            <Table.Td>{build.jobId}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${build.deviceId}`} c="green.9">
                <ShortId id={build.deviceId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/orders/${build.orderId}`} c="green.9">
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
      <PagingFooter
        totalPages={pageCount(builds.data)}
        pageNum={state.pageNum}
        onPage={page}
        pageSizeLabel={t('trace.pageSize')}
        pageSize={state.numberOfItems}
        onPageSize={(numberOfItems) => update({ numberOfItems })}
      />
    </Stack>
  );
}
