import { ZDsiEntry, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

export interface GetDasEntriesInput {
  pageNum: number;
  numberOfItems: number;
  dsiId?: string | undefined;
}

const ZDsiEntryPage = ZPage(ZDsiEntry);

/** The design archive's DSI entries (built revisions), newest first, optionally of one package. */
export function getDasEntries(input: GetDasEntriesInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/das/list', ZDsiEntryPage, { query: { ...input }, signal });
}

export function useDasEntries(input: GetDasEntriesInput) {
  return useQuery(pagedListQueryOptions(['das', 'list', input], (signal) => getDasEntries(input, signal)));
}
