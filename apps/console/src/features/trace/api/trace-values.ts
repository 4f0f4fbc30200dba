import { ZPage, ZSvpTemplate, ZSvpValue, type TSvpValue } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiDownload, apiRequest, apiUpload } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import { pagedListQueryOptions } from '../../../lib/paging';
import type { UploadContext } from '../../../lib/upload-tray';

/** Where values are recorded and listed: a part (its own and its build's values) or a build. */
export type ValueTarget = { partId: string; buildId: string } | { buildId: string; partId?: undefined };

/** Trace-parameter values and everything showing them (a part's history carries them too). */
const valuesKey = ['svp', 'values'] as const;

export function useTraceValues(target: ValueTarget, page: { pageNum: number; numberOfItems: number }) {
  const filter = target.partId !== undefined ? { partId: target.partId } : { buildId: target.buildId };
  return useQuery(
    pagedListQueryOptions([...valuesKey, filter, page], (signal) =>
      apiRequest('GET /ui/svp-value/list', ZPage(ZSvpValue), { query: { ...filter, ...page }, signal }),
    ),
  );
}

/** Every template (a value is recorded for one of their parameters); at most the server's page size. */
export function useAllSvpTemplates() {
  return useQuery(
    pagedListQueryOptions(['svp', 'templates', 'all'], (signal) =>
      apiRequest('GET /ui/svp/list', ZPage(ZSvpTemplate), { query: { pageNum: 1, numberOfItems: 500 }, signal }),
    ),
  );
}

export type ManualValueInput = { value: string } | { dtlId: string };

export function addManualValue(input: { parameterId: string; partId?: string; buildId?: string } & ManualValueInput) {
  return apiRequest('POST /ui/svp-value/manual/add', ZSvpValue, { body: input });
}

export function editManualValue(input: { id: string } & ManualValueInput) {
  return apiRequest('POST /ui/svp-value/manual/edit', ZSvpValue, { body: input });
}

export function deleteValue(input: { id: string }) {
  return apiRequest('POST /ui/svp-value/delete', z.object({}), { body: input });
}

/** A file value, sent through the upload tray: the target fields first, then the file. */
export function uploadValueFile(
  input: { parameterId: string; partId?: string | undefined; buildId?: string | undefined; file: File },
  context: UploadContext,
) {
  return apiUpload('POST /ui/svp-value/file/add', ZSvpValue, {
    fields: { parameterId: input.parameterId, partId: input.partId, buildId: input.buildId, file: input.file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}

/** Replaces a file value's file, through the upload tray. */
export function replaceValueFile(input: { id: string; parameterId: string; file: File }, context: UploadContext) {
  return apiUpload('POST /ui/svp-value/file/edit', ZSvpValue, {
    fields: { id: input.id, parameterId: input.parameterId, file: input.file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}

export async function downloadValueFile(value: TSvpValue): Promise<void> {
  const download = await apiDownload('GET /ui/svp-value/file', { query: { id: value.id } });
  saveBlob(download.blob, download.fileName ?? value.file?.fileName ?? 'file');
}

/** After a value changed: the value lists and the part histories showing them. */
export function useInvalidateValues() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: valuesKey }),
      queryClient.invalidateQueries({ queryKey: ['trace', 'part'] }),
    ]);
}

function useValueMutation<I, R>(mutationFn: (input: I) => Promise<R>) {
  const invalidate = useInvalidateValues();
  return useMutation({ mutationFn, onSuccess: () => invalidate() });
}

export const useAddManualValue = () => useValueMutation(addManualValue);
export const useEditManualValue = () => useValueMutation(editManualValue);
export const useDeleteValue = () => useValueMutation(deleteValue);
