import { Code, Stack, Table } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { ListFilter } from '../../../components/list-filter';
import { IconAction } from '../../../components/icon-action';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { pageCount } from '../../../lib/paging';
import { useOutbox, useRetryOutboxMessage } from '../api/outbox';
import { DeliveryCells, DeliveryStateBadge } from '../components/delivery-cells';

const pageSize = 10;
const filters = ['all', 'pending', 'failed', 'delivered', 'cancelled'] as const;
type Filter = (typeof filters)[number];

function isFilter(value: string): value is Filter {
  return filters.some((filter) => filter === value);
}

/** The outbox (ADMIN): messages to peers with their state, attempts, next attempt and last error; retry now. */
export function OutboxRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const paging = usePagedSearch({ filters: ['state'] });
  const { page, setPage } = paging;
  const chosen = paging.filters.state ?? 'all';
  const filter: Filter = isFilter(chosen) ? chosen : 'all';
  const outbox = useOutbox({ pageNum: page, numberOfItems: pageSize, state: filter === 'all' ? undefined : filter });
  usePageInRange(paging, outbox);
  const retry = useRetryOutboxMessage();

  return (
    <Stack gap="lg">
      <ListHeader title={t('outbox.title')} description={t('outbox.description')} />
      <ListFilter
        label={t('outbox.filter')}
        value={filter}
        options={filters.map((value) => ({ value, label: t(value === 'all' ? 'outbox.all' : `outbox.states.${value}`) }))}
        onChange={(value) => paging.setFilters({ state: value === 'all' ? undefined : value })}
      />
      {outbox.error ? <ErrorAlert>{apiErrorMessage(t, outbox.error)}</ErrorAlert> : null}
      <DataTable
        testId="outbox-table"
        minWidth={1000}
        busy={outbox.isFetching}
        caption={t('outbox.caption', { count: outbox.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('outbox.kind'),
          t('outbox.subject'),
          t('outbox.state'),
          t('outbox.attempts'),
          t('outbox.nextAttempt'),
          t('outbox.lastError'),
          t('outbox.created'),
          t('outbox.actions'),
        ]}
        empty={outbox.data?.data.length === 0 ? t(filter === 'all' ? 'outbox.empty' : 'outbox.noMatch') : null}
      >
        {(outbox.data?.data ?? []).map((message) => (
          <Table.Tr key={message.id} data-message-id={message.messageId}>
            <Table.Td>{t(`outbox.kinds.${message.kind}`, { defaultValue: message.kind })}</Table.Td>
            <Table.Td>
              <Code>{message.subjectId}</Code>
            </Table.Td>
            <Table.Td>
              <DeliveryStateBadge state={message.state} label={t(`outbox.states.${message.state}`)} />
            </Table.Td>
            <DeliveryCells
              attempts={message.attempts}
              nextAttemptAt={message.state === 'pending' ? message.nextAttemptAt : null}
              lastError={message.lastError}
            />
            <Table.Td>
              <time dateTime={message.createdAt}>{format(message.createdAt)}</time>
            </Table.Td>
            <Table.Td>
              {message.messageId && (message.state === 'failed' || message.state === 'pending') ? (
                <IconAction
                  tooltip={t('outbox.retry')}
                  label={t('outbox.retryMessage', { messageId: message.messageId })}
                  icon={IconRefresh}
                  color="green"
                  loading={retry.isPending && retry.variables === message.messageId}
                  onClick={() =>
                    retry.mutate(message.messageId!, {
                      onSuccess: () => alerts.success(t('outbox.retried', { messageId: message.messageId })),
                      onError: (error) => alerts.error(apiErrorMessage(t, error)),
                    })
                  }
                />
              ) : null}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(outbox.data)} value={page} onChange={setPage} />
    </Stack>
  );
}
