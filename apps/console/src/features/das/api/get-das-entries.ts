import { type TDsiEntry, ZDsiEntry, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { apiRequest, apiUpload } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';
import type { UploadContext } from '../../../lib/upload-tray';

export interface GetDasEntriesInput {
  pageNum: number;
  numberOfItems: number;
  dsiId?: string | undefined;
}

const ZDsiEntryPage = ZPage(ZDsiEntry);

/** The design archive's DSI entries (built revisions and uploaded packages), newest first, optionally of one DSI. */
export function getDasEntries(input: GetDasEntriesInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/das/list', ZDsiEntryPage, { query: { ...input }, signal });
}

export function useDasEntries(input: GetDasEntriesInput) {
  return useQuery(pagedListQueryOptions(['das', 'list', input], (signal) => getDasEntries(input, signal)));
}

/** Uploads a design package file (a DSI entry with its manifest and signature) into the archive. */
export function uploadDesignPackage(file: File, context: UploadContext): Promise<TDsiEntry> {
  return apiUpload('POST /ui/das/upload', ZDsiEntry, {
    fields: { file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
