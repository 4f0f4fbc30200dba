import { ActionIcon, Anchor, Button, Group, Stack, Table } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { ErrorAlert } from '../../../components/error-alert';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../../components/data-table';
import { useDateTimeFormat } from '../../../lib/format';
import { getEventsEpcis, getMachineHistory, useEventList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { TraceListScreen } from '../components/trace-list-screen';
import { useJsonExport } from '../components/use-json-export';
import { EventStatusBadge, ShortId } from '../components/trace-badges';
import { filterField } from '../../../components/id-inputs';

const filters = ['dsiId'] as const;

/**
 * A machine's or an order's id, linked to its page here; an event a Manage instance forwarded names
 * that instance's machine and order, which have no page here: the id alone, saying so.
 */
function PageLink({ forwarded, to, id }: { forwarded: boolean; to: string; id: string }) {
  const { t } = useTranslation();
  if (forwarded) return <ShortId id={id} title={t('trace.events.forwardedId', { id })} />;
  return (
    <Anchor component={Link} to={to} c="var(--manifold-link)">
      <ShortId id={id} />
    </Anchor>
  );
}

/** Trace events the machines reported, newest first, with their check; filtered by design. */
export function EventsRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const list = useListParams(filters);
  const { state } = list;
  const events = useEventList(state);
  const { save: saveFetched, error: exportError } = useJsonExport();
  const exportEpcis = () =>
    saveFetched(() => getEventsEpcis(state), `events-page-${state.pageNum}.epcis.jsonld`, 'application/ld+json');
  // a machine's whole signed history, for `npm run verify-history`: on a Trace instance also a
  // machine a reporting instance approved, which has no machine page here
  const exportMachine = (deviceId: string) => saveFetched(() => getMachineHistory(deviceId), `machine-${deviceId}-events.json`);

  return (
    <TraceListScreen
      title={t('trace.events.title')}
      description={t('trace.events.description')}
      list={list}
      textFilters={[filterField('dsiId', t('trace.filters.dsiId'))]}
      result={events}
      controls={
        <Stack gap="xs">
          <Group>
            <Button variant="default" leftSection={<IconDownload size={16} aria-hidden />} onClick={() => void exportEpcis()}>
              {t('trace.events.exportEpcis')}
            </Button>
          </Group>
          {exportError ? <ErrorAlert>{exportError}</ErrorAlert> : null}
        </Stack>
      }
    >
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
        empty={events.data?.data.length === 0 ? t(list.narrowed ? 'trace.events.noMatch' : 'trace.events.empty') : null}
      >
        {(events.data?.data ?? []).map((entry) => (
          <Table.Tr key={entry.eventId} data-event-id={entry.eventId} data-kind={entry.event.kind}>
            <Table.Td>
              <time dateTime={entry.event.occurredAt}>{format(entry.event.occurredAt)}</time>
            </Table.Td>
            <Table.Td>{t(`auditKinds.${entry.event.kind}`)}</Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                <PageLink forwarded={entry.source === 'peer'} to={`/devices/${entry.event.deviceId}`} id={entry.event.deviceId} />
                <ActionIcon
                  variant="subtle"
                  size="sm"
                  aria-label={t('trace.events.exportMachine', { id: entry.event.deviceId })}
                  title={t('trace.events.exportMachine', { id: entry.event.deviceId })}
                  onClick={() => void exportMachine(entry.event.deviceId)}
                >
                  <IconDownload size={14} aria-hidden />
                </ActionIcon>
              </Group>
            </Table.Td>
            <Table.Td>{entry.event.jobId ?? '—'}</Table.Td>
            <Table.Td>{entry.event.quantity ?? '—'}</Table.Td>
            <Table.Td>
              {entry.event.orderId ? (
                <PageLink forwarded={entry.source === 'peer'} to={`/orders/${entry.event.orderId}`} id={entry.event.orderId} />
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
    </TraceListScreen>
  );
}
