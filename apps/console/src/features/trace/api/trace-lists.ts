import {
  ZAuditListEntry,
  ZBuild,
  ZDtl,
  ZEpcisDocument,
  ZPage,
  ZPart,
  ZPartHistoryWithValues,
  ZTraceEventEntry,
  ZTraceHistory,
  type TAuditEventType,
} from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest, apiUpload } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';
import type { UploadContext } from '../../../lib/upload-tray';

/** Paging of the trace lists (spec §7/§9). */
export interface PageInput {
  pageNum: number;
  numberOfItems: number;
}

export interface AuditListInput extends PageInput {
  kind?: TAuditEventType | undefined;
  /** ISO-8601 instants: from inclusive, to exclusive. */
  from?: string | undefined;
  to?: string | undefined;
  actor?: string | undefined;
  subject?: string | undefined;
}

const ZAuditPage = ZPage(ZAuditListEntry);
const ZEventPage = ZPage(ZTraceEventEntry);
const ZBuildPage = ZPage(ZBuild);
const ZPartPage = ZPage(ZPart);

export function useAuditList(input: AuditListInput) {
  return useQuery(
    pagedListQueryOptions(['trace', 'audit', input], (signal) =>
      apiRequest('GET /ui/audit/list', ZAuditPage, { query: { ...input }, signal }),
    ),
  );
}

export function useEventList(input: PageInput & { dsiId?: string | undefined }) {
  return useQuery(
    pagedListQueryOptions(['trace', 'events', input], (signal) =>
      apiRequest('GET /ui/event/list', ZEventPage, { query: { ...input }, signal }),
    ),
  );
}

export function useBuildList(input: PageInput & { dsiId?: string | undefined; buildId?: string | undefined }) {
  return useQuery(
    pagedListQueryOptions(['trace', 'builds', input], (signal) =>
      apiRequest('GET /ui/build/list', ZBuildPage, { query: { ...input }, signal }),
    ),
  );
}

export function usePartList(input: PageInput & { dsiId?: string | undefined; serialNumber?: string | undefined }) {
  return useQuery(
    pagedListQueryOptions(['trace', 'parts', input], (signal) =>
      apiRequest('GET /ui/part/list', ZPartPage, { query: { ...input }, signal }),
    ),
  );
}

export function usePartHistory(partId: string) {
  return useQuery(
    queryOptions({
      queryKey: ['trace', 'part', partId],
      queryFn: ({ signal }) => apiRequest('GET /ui/part/history', ZPartHistoryWithValues, { query: { partId }, signal }),
    }),
  );
}

/** A machine's signed event history (`event/export`), checkable offline with `npm run verify-history`. */
export function getMachineHistory(deviceId: string) {
  return apiRequest('GET /ui/event/export', ZTraceHistory, { query: { deviceId } });
}

const ZDtlPage = ZPage(ZDtl);

export function useDtlList(input: PageInput & { deviceId?: string | undefined; orderId?: string | undefined }) {
  return useQuery(
    pagedListQueryOptions(['trace', 'dtls', input], (signal) =>
      apiRequest('GET /ui/dtl/list', ZDtlPage, { query: { ...input }, signal }),
    ),
  );
}

/** Uploads a machine's data file for it (and one of its authorizations, if named). */
export function uploadMachineData(
  input: { deviceId: string; authorizationId: string | undefined; file: File },
  context: UploadContext,
) {
  return apiUpload('POST /ui/storage/dtl/upload', ZDtl, {
    fields: input,
    onProgress: context.onProgress,
    signal: context.signal,
  });
}

/** A part's history as an EPCIS 2.0 JSON-LD document. */
export function getPartEpcis(partId: string) {
  return apiRequest('GET /ui/part/epcis', ZEpcisDocument, { query: { partId } });
}

/** A page of the event search as an EPCIS 2.0 JSON-LD document. */
export function getEventsEpcis(input: PageInput & { dsiId?: string | undefined }) {
  return apiRequest('GET /ui/event/epcis', ZEpcisDocument, { query: { ...input } });
}
