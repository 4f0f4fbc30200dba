import { ZEmpty, ZOutboxMessage, ZPage, ZQueuedEvent, type TOutboxState } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiDownload, apiRequest } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import { pagedListQueryOptions } from '../../../lib/paging';

export interface OutboxInput {
  pageNum: number;
  numberOfItems: number;
  state?: TOutboxState | undefined;
}

const ZOutboxPage = ZPage(ZOutboxMessage);
const ZQueuePage = ZPage(ZQueuedEvent);

/** `GET /ui/admin/outbox` (ADMIN): messages to peers, newest first. */
export function useOutbox(input: OutboxInput) {
  return useQuery(
    pagedListQueryOptions(['outbox', 'list', input], (signal) =>
      apiRequest('GET /ui/admin/outbox', ZOutboxPage, { query: { ...input }, signal }),
    ),
  );
}

/** `POST /ui/admin/outbox/retry` (ADMIN): a given-up or waiting message tried now; refreshes the outbox. */
export function useRetryOutboxMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (messageId: string) => apiRequest('POST /ui/admin/outbox/retry', ZOutboxMessage, { body: { messageId } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['outbox'] });
      await queryClient.invalidateQueries({ queryKey: ['queue'] });
    },
  });
}

/** `GET /ui/queue/list`: events waiting for the Trace instances. */
export function useQueue(input: { pageNum: number; numberOfItems: number }) {
  return useQuery(
    pagedListQueryOptions(['queue', 'list', input], (signal) =>
      apiRequest('GET /ui/queue/list', ZQueuePage, { query: { ...input }, signal }),
    ),
  );
}

/** `queue/send` (send now) and `queue/delete` (ADMIN); both refresh the queue and the outbox. */
export function useQueueAction(action: 'send' | 'delete') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (eventId: string) =>
      apiRequest(action === 'send' ? 'POST /ui/queue/send' : 'POST /ui/queue/delete', ZEmpty, { body: { eventId } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['queue'] });
      await queryClient.invalidateQueries({ queryKey: ['outbox'] });
    },
  });
}

/** `queue/download`: the event as XML, saved as a file. */
export function useDownloadQueuedEvent() {
  return useMutation({
    mutationFn: async (eventId: string) => {
      const download = await apiDownload('GET /ui/queue/download', { query: { traceEventId: eventId } });
      saveBlob(download.blob, download.fileName ?? `event-${eventId}.xml`);
    },
  });
}
