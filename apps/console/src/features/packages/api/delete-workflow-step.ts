import { ZWorkflowSteps } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { packageQueryKey } from './get-package';

export const ZDeleteWorkflowStepInput = z.object({ dsiId: z.string(), workflowStepId: z.string() });
export type DeleteWorkflowStepInput = z.infer<typeof ZDeleteWorkflowStepInput>;

export function deleteWorkflowStep(input: DeleteWorkflowStepInput) {
  return apiRequest('POST /ui/package/workflow/delete', ZWorkflowSteps, { body: ZDeleteWorkflowStepInput.parse(input) });
}

export function useDeleteWorkflowStep() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteWorkflowStep,
    onSuccess: (_steps, input) => queryClient.invalidateQueries({ queryKey: packageQueryKey(input.dsiId) }),
  });
}
