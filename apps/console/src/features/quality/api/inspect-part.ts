import { ZInspectionResponse, ZInspectionTarget, type TInspectionRequest } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, apiUpload } from '../../../lib/api-client';

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
  pictures: File[];
  onProgress?: (fraction: number) => void;
}

/** Records an inspection: the inspection as JSON, then its pictures, in one multipart request. */
export function inspectPart({ inspection, pictures, onProgress }: InspectInput) {
  return apiUpload('POST /ui/qms/inspection', ZInspectionResponse, {
    fields: { inspection: JSON.stringify(inspection), picture: pictures },
    ...(onProgress ? { onProgress } : {}),
  });
}

export function useInspectPart() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: inspectPart,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['quality'] }),
  });
}
