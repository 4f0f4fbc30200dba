import { ZInspectionResponse, ZInspectionTarget, type TInspectionRequest, type TInspectionResponse } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, apiUpload } from '../../../lib/api-client';
import { uploadTray } from '../../../lib/upload-tray';

export type InspectionTargetInput = { partId: string } | { buildId: string };

export function getInspectionTarget(input: InspectionTargetInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/qms/inspection/parameters', ZInspectionTarget, { query: input, signal });
}

/** What the form asks for: the parts and the quality parameters with their bounds; idle without a target. */
export function useInspectionTarget(input: InspectionTargetInput | undefined) {
  return useQuery({
    queryKey: ['quality', 'inspection-target', input],
    queryFn: ({ signal }) => getInspectionTarget(input!, signal),
    enabled: input !== undefined,
    retry: false,
  });
}

export interface InspectInput {
  inspection: Partial<TInspectionRequest> & Pick<TInspectionRequest, 'result' | 'technician'>;
  pictures: readonly File[];
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** Records an inspection: the inspection as JSON, then its pictures, in one multipart request. */
export function inspectPart({ inspection, pictures, onProgress, signal }: InspectInput) {
  return apiUpload('POST /ui/qms/inspection', ZInspectionResponse, {
    fields: { inspection: JSON.stringify(inspection), picture: pictures },
    ...(onProgress ? { onProgress } : {}),
    ...(signal ? { signal } : {}),
  });
}

/**
 * Records an inspection; with pictures the request goes through the console's upload tray (one
 * entry named `trayLabel`, with its progress; discarding it there cancels the request), and the
 * answer or the refusal still comes back here for the form.
 */
export function inspectThroughTray(input: Omit<InspectInput, 'onProgress' | 'signal'> & { trayLabel: string }) {
  const { trayLabel, ...rest } = input;
  if (rest.pictures.length === 0) return inspectPart(rest);
  return new Promise<TInspectionResponse>((resolve, reject) => {
    uploadTray.addGroup(rest.pictures, {
      uploadType: 'inspection',
      label: trayLabel,
      upload: (pictures, context) =>
        inspectPart({ ...rest, pictures, onProgress: context.onProgress, signal: context.signal }).then(
          (answer) => {
            resolve(answer);
            return answer;
          },
          (error: unknown) => {
            reject(error as Error);
            throw error;
          },
        ),
    });
  });
}

export function useInspectPart() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: inspectThroughTray,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['quality'] }),
  });
}
