import { Code, Group, Stack, Table, Text } from '@mantine/core';
import type { TQueuedEvent } from '@manifold/contract';
import { IconDownload, IconSend, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { IconAction } from '../../../components/icon-action';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { useDownloadQueuedEvent, useQueue, useQueueAction } from '../api/outbox';
import { DeliveryCells, DeliveryStateBadge } from '../components/delivery-cells';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** The event queue: events waiting until every Trace instance acknowledged them; send now and delete (ADMIN), XML download. */
export function QueueRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const confirm = useConfirm();
  const session = useQuery(sessionQueryOptions());
  const isAdmin = roleCan(session.data?.userProfile.role, 'POST /ui/queue/send');
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const queue = useQueue({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, queue);
  const send = useQueueAction('send');
  const remove = useQueueAction('delete');
  const download = useDownloadQueuedEvent();
  const failed = (error: unknown) => alerts.error(apiErrorMessage(t, error));

  const confirmDelete = (event: TQueuedEvent) =>
    confirm({
      title: t('queue.deleteTitle'),
      message: t('queue.deleteConfirm', { eventId: event.eventId }),
      onConfirm: () =>
        remove.mutate(event.eventId, {
          onSuccess: () => alerts.success(t('queue.deleted', { eventId: event.eventId })),
          onError: failed,
        }),
    });

  return (
    <Stack gap="lg">
      <ListHeader title={t('queue.title')} description={t('queue.description')} />
      {queue.error ? <ErrorAlert>{apiErrorMessage(t, queue.error)}</ErrorAlert> : null}
      <DataTable
        testId="queue-table"
        minWidth={960}
        busy={queue.isFetching}
        caption={t('queue.caption', { count: queue.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('queue.event'),
          t('queue.kind'),
          t('queue.state'),
          t('queue.delivered'),
          t('queue.attempts'),
          t('queue.nextAttempt'),
          t('queue.lastError'),
          t('common.actions'),
        ]}
        empty={queue.data?.data.length === 0 ? t('queue.empty') : null}
      >
        {(queue.data?.data ?? []).map((event) => (
          <Table.Tr key={event.eventId} data-event-id={event.eventId}>
            <Table.Td>
              <Code>{event.eventId}</Code>
              <Text size="xs" c="dimmed">
                <time dateTime={event.occurredAt}>{format(event.occurredAt)}</time>
              </Text>
            </Table.Td>
            <Table.Td data-kind={event.kind}>{t(`auditKinds.${event.kind}`, { defaultValue: event.kind })}</Table.Td>
            <Table.Td>
              <DeliveryStateBadge state={event.state} label={t(`queue.states.${event.state}`)} />
            </Table.Td>
            <Table.Td>{t('queue.deliveredOf', { delivered: event.delivered, targets: event.targets })}</Table.Td>
            <DeliveryCells attempts={event.attempts} nextAttemptAt={event.nextAttemptAt} lastError={event.lastError} />
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                <IconAction
                  tooltip={t('queue.download')}
                  label={t('queue.downloadEvent', { eventId: event.eventId })}
                  icon={IconDownload}
                  loading={download.isPending && download.variables === event.eventId}
                  onClick={() => download.mutate(event.eventId, { onError: failed })}
                />
                {isAdmin ? (
                  <>
                    <IconAction
                      tooltip={t('queue.send')}
                      label={t('queue.sendEvent', { eventId: event.eventId })}
                      icon={IconSend}
                      color="green"
                      loading={send.isPending && send.variables === event.eventId}
                      onClick={() =>
                        send.mutate(event.eventId, {
                          onSuccess: () => alerts.success(t('queue.sent', { eventId: event.eventId })),
                          onError: failed,
                        })
                      }
                    />
                    <IconAction
                      tooltip={t('common.delete')}
                      label={t('queue.deleteEvent', { eventId: event.eventId })}
                      icon={IconTrash}
                      color="red"
                      onClick={() => confirmDelete(event)}
                    />
                  </>
                ) : null}
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(queue.data)} value={page} onChange={setPage} />
    </Stack>
  );
}
