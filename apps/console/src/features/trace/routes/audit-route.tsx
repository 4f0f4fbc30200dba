import { Code, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { auditEventTypes, type TAuditEventType } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/data-table';
import { useDateTimeFormat } from '../../../lib/format';
import { sessionQueryOptions } from '../../../lib/session';
import { zonedDayStart } from '../../../lib/zoned-day';
import { useAuditList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { TraceListScreen } from '../components/trace-list-screen';

const filters = ['kind', 'fromDay', 'toDay', 'actor', 'subject'] as const;
const textFilters = ['actor', 'subject'] as const;
const dayFilters = ['fromDay', 'toDay'] as const;
/** The days are sent as the instants `from` and `to`: a refusal of those is about the days. */
const dayFieldOf = { from: 'fromDay', to: 'toDay' } as const;

function isKind(value: string | undefined): value is TAuditEventType {
  return auditEventTypes.some((kind) => kind === value);
}

/** A record's details as name and value lines (values that are not text as JSON). */
function detailLines(details: unknown): [string, string][] {
  if (details === null || details === undefined) return [];
  if (typeof details !== 'object' || Array.isArray(details)) return [['', JSON.stringify(details)]];
  return Object.entries(details).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]);
}

/**
 * The audit trail (ADMIN): every record newest first, each kind in the reader's language;
 * filtered by kind, by days in the user's time zone (from the first to the last day, both
 * included), actor and subject; paged; the filters kept in the address.
 */
export function AuditRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const session = useQuery(sessionQueryOptions());
  const timeZone = session.data?.userProfile.timeZone;
  const list = useListParams(filters, { days: dayFilters });
  const { state, update } = list;
  const kind = isKind(state.kind) ? state.kind : undefined;
  const audit = useAuditList({
    pageNum: state.pageNum,
    numberOfItems: state.numberOfItems,
    kind,
    from: state.fromDay ? zonedDayStart(state.fromDay, timeZone) : undefined,
    to: state.toDay ? zonedDayStart(state.toDay, timeZone, 1) : undefined,
    actor: state.actor,
    subject: state.subject,
  });
  // a kind this console has no words for yet shows the server's English text
  const kindLabel = (value: string, text?: string) => t(`auditKinds.${value}`, { defaultValue: text ?? value });

  return (
    <TraceListScreen
      title={t('trace.audit.title')}
      description={t('trace.audit.description')}
      list={list}
      textFilters={textFilters.map((name) => ({ name, label: t(`trace.audit.${name}`) }))}
      result={audit}
      fieldOf={dayFieldOf}
      controls={(errors) => (
        <Group align="flex-end">
          <Select
            label={t('trace.audit.kind')}
            placeholder={t('trace.audit.anyKind')}
            w={320}
            searchable
            clearable
            nothingFoundMessage={t('common.nothingFound')}
            data={auditEventTypes
              .map((value) => ({ value, label: kindLabel(value) }))
              .sort((a, b) => a.label.localeCompare(b.label))}
            value={kind ?? null}
            error={errors.kind}
            onChange={(value) => update({ kind: value ?? undefined })}
          />
          <TextInput
            type="date"
            label={t('trace.audit.fromDay')}
            value={state.fromDay ?? ''}
            error={errors.fromDay}
            onChange={(event) => update({ fromDay: event.currentTarget.value || undefined })}
          />
          <TextInput
            type="date"
            label={t('trace.audit.toDay')}
            value={state.toDay ?? ''}
            error={errors.toDay}
            onChange={(event) => update({ toDay: event.currentTarget.value || undefined })}
          />
        </Group>
      )}
    >
      <DataTable
        testId="audit-table"
        minWidth={900}
        busy={audit.isFetching}
        caption={t('trace.audit.caption', { total: audit.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('trace.audit.when'),
          t('trace.audit.event'),
          t('trace.audit.actorColumn'),
          t('trace.audit.subjectColumn'),
          t('trace.audit.details'),
          t('trace.audit.sourceIp'),
        ]}
        empty={audit.data?.data.length === 0 ? t(list.narrowed ? 'trace.audit.noMatch' : 'trace.audit.empty') : null}
      >
        {(audit.data?.data ?? []).map((entry) => (
          <Table.Tr key={entry.id} data-event={entry.eventType} data-subject={entry.subject ?? ''}>
            <Table.Td>
              <time dateTime={entry.dateCreated}>{format(entry.dateCreated)}</time>
            </Table.Td>
            <Table.Td>{kindLabel(entry.eventType, entry.text)}</Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{entry.actor ?? t('trace.audit.server')}</Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{entry.subject ?? '—'}</Table.Td>
            <Table.Td maw={320}>
              {detailLines(entry.details).length === 0
                ? '—'
                : detailLines(entry.details).map(([name, value]) => (
                    <Text key={name} size="xs" style={{ overflowWrap: 'anywhere' }}>
                      {name ? <Code>{name}</Code> : null} {value}
                    </Text>
                  ))}
            </Table.Td>
            <Table.Td>{entry.sourceIp ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </TraceListScreen>
  );
}
