import { Anchor, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../../components/data-table';
import { useDateTimeFormat } from '../../../lib/format';
import { usePartList } from '../api/trace-lists';
import { useListParams } from '../components/list-params';
import { TraceListScreen } from '../components/trace-list-screen';
import { QmsStateBadge, ShortId } from '../components/trace-badges';
import { filterField } from '../../../components/id-inputs';

const filters = ['dsiId', 'serialNumber'] as const;

/** Parts the machines made or lost (ADMIN), newest first; each opens its whole history. */
export function PartsRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const list = useListParams(filters);
  const { state } = list;
  const parts = usePartList(state);

  return (
    <TraceListScreen
      title={t('trace.parts.title')}
      description={t('trace.parts.description')}
      list={list}
      textFilters={filters.map((name) => filterField(name, t(`trace.filters.${name}`)))}
      result={parts}
    >
      <DataTable
        testId="parts-table"
        minWidth={900}
        busy={parts.isFetching}
        caption={t('trace.parts.caption', { total: parts.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('trace.parts.part'),
          t('trace.parts.design'),
          t('trace.parts.state'),
          t('trace.parts.job'),
          t('trace.parts.machine'),
          t('trace.parts.made'),
        ]}
        empty={parts.data?.data.length === 0 ? t(list.narrowed ? 'trace.parts.noMatch' : 'trace.parts.empty') : null}
      >
        {(parts.data?.data ?? []).map((part) => (
          <Table.Tr key={part.id} data-part-id={part.id} data-qms-state={part.partQmsState}>
            <Table.Td>
              <Anchor component={Link} to={`/parts/${part.id}`} c="var(--manifold-link)">
                {part.serialNumber ?? t('trace.parts.unnumbered', { id: part.id.slice(0, 8) })}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/packages/${part.dsiId}`} c="var(--manifold-link)">
                <ShortId id={part.dsiId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              <QmsStateBadge state={part.partQmsState} />
            </Table.Td>
            <Table.Td>{part.jobId}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to={`/devices/${part.deviceId}`} c="var(--manifold-link)">
                <ShortId id={part.deviceId} />
              </Anchor>
            </Table.Td>
            <Table.Td>
              <time dateTime={part.dateCreated}>{format(part.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </TraceListScreen>
  );
}
