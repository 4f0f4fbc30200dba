import { workflowStepTypes, ZWorkflowStep, type TWorkflowStep } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { packageQueryKey } from './get-package';

export const ZAddWorkflowStepInput = z.object({
  dsiId: z.string(),
  type: z.enum(workflowStepTypes),
  name: z.string(),
  instructions: z.string(),
  deviceTemplateId: z.string().nullable(),
});
export type AddWorkflowStepInput = z.infer<typeof ZAddWorkflowStepInput>;

export function addWorkflowStep(input: AddWorkflowStepInput): Promise<TWorkflowStep> {
  return apiRequest('POST /ui/package/workflow/add', ZWorkflowStep, { body: ZAddWorkflowStepInput.parse(input) });
}

export function useAddWorkflowStep() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addWorkflowStep,
    onSuccess: (_step, input) => queryClient.invalidateQueries({ queryKey: packageQueryKey(input.dsiId) }),
  });
}
