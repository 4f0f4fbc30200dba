import { ZQualitySearchResponse, type TQualitySearchRequest } from '@manifold/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

/** The search as the screen sends it (the server fills the defaults). */
export type SearchPartsInput = Partial<TQualitySearchRequest>;

export function searchParts(input: SearchPartsInput, signal?: AbortSignal) {
  return apiRequest('POST /ui/qms/parts/search', ZQualitySearchResponse, { body: input, signal });
}

export function searchPartsQueryOptions(input: SearchPartsInput) {
  return queryOptions({
    queryKey: ['quality', 'search', input],
    queryFn: ({ signal }) => searchParts(input, signal),
    placeholderData: keepPreviousData,
  });
}

export function useSearchParts(input: SearchPartsInput) {
  return useQuery(searchPartsQueryOptions(input));
}
