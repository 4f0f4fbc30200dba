import { ZPage, ZSvpTemplate, ZSvpType, type TSvpAddRequest, type TSvpEditRequest } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

type PageInput = { pageNum: number; numberOfItems: number };

export function useSvpTypes(input: PageInput) {
  return useQuery(
    pagedListQueryOptions(['svp', 'types', input], (signal) =>
      apiRequest('GET /ui/svp-type/list', ZPage(ZSvpType), { query: input, signal }),
    ),
  );
}

export function useSvpTemplates(input: PageInput) {
  return useQuery(
    pagedListQueryOptions(['svp', 'templates', input], (signal) =>
      apiRequest('GET /ui/svp/list', ZPage(ZSvpTemplate), { query: input, signal }),
    ),
  );
}

function useSvpMutation<I, O>(run: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: run, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['svp'] }) });
}

export const useAddSvpType = () =>
  useSvpMutation((input: { name: string; description: string }) =>
    apiRequest('POST /ui/svp-type/add', ZSvpType, { body: input }),
  );

export const useAddSvpTemplate = () =>
  useSvpMutation((input: TSvpAddRequest) => apiRequest('POST /ui/svp/add', ZSvpTemplate, { body: input }));

export const useEditSvpTemplate = () =>
  useSvpMutation((input: TSvpEditRequest) => apiRequest('POST /ui/svp/edit', ZSvpTemplate, { body: input }));

export const useDeleteSvpTemplate = () =>
  useSvpMutation((input: { id: string }) => apiRequest('POST /ui/svp/delete', z.object({}), { body: input }));
