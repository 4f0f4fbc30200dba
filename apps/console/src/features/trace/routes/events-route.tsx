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
import { useEventList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { EventStatusBadge, ShortId } from '../components/trace-badges';

const filters = ['dsiId'] as const;

/** Trace events the machines reported, newest first, with their check; filtered by design. */
export function EventsRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const { state, update, page } = useListParams(filters);
  const events = useEventList(state);

  return (
    <Stack gap="lg">
      <ListHeader title={t('trace.events.title')} description={t('trace.events.description')} />
      <TextFilterForm
        title={t('trace.filters.title')}
        fields={[{ name: 'dsiId', label: t('trace.filters.dsiId') }]}
        applied={state}
        onApply={update}
        applyLabel={t('trace.filters.apply')}
        clearLabel={t('trace.filters.clear')}
      />
      {events.error ? <ErrorAlert>{apiErrorMessage(t, events.error)}</ErrorAlert> : null}
      <DataTable
        testId="events-table"
        minWidth={1000}
        busy={events.isFetching}
        caption={t('trace.events.caption', { total: events.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('trace.events.occurredAt'),
          t('trace.events.kind'),
          t('trace.events.machine'),
          t('trace.events.job'),
          t('trace.events.quantity'),
          t('trace.events.order'),
          t('trace.events.status'),
          t('trace.events.received'),
        ]}
        empty={events.data?.data.length === 0 ? t('trace.events.empty') : null}
      >
        {(events.data?.data ?? []).map((entry) => (
          <Table.Tr key={entry.eventId} data-event-id={entry.eventId} data-kind={entry.event.kind}>
            <Table.Td>
              <time dateTime={entry.event.occurredAt}>{format(entry.event.occurredAt)}</time>
            </Table.Td>
            <Table.Td>{t(`auditKinds.${entry.event.kind}`)}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${entry.event.deviceId}`} c="green.9">
                <ShortId id={entry.event.deviceId} />
              </Anchor>
            </Table.Td>
            <Table.Td>{entry.event.jobId ?? '—'}</Table.Td>
            <Table.Td>{entry.event.quantity ?? '—'}</Table.Td>
            <Table.Td>
              {entry.event.orderId ? (
                <Anchor component={Link} to={`/orders/${entry.event.orderId}`} c="green.9">
                  <ShortId id={entry.event.orderId} />
                </Anchor>
              ) : (
                '—'
              )}
            </Table.Td>
            <Table.Td>
              <EventStatusBadge event={entry} />
            </Table.Td>
            <Table.Td>
              <time dateTime={entry.dateCreated}>{format(entry.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <PagingFooter
        totalPages={pageCount(events.data)}
        pageNum={state.pageNum}
        onPage={page}
        pageSizeLabel={t('trace.pageSize')}
        pageSize={state.numberOfItems}
        onPageSize={(numberOfItems) => update({ numberOfItems })}
      />
    </Stack>
  );
}
