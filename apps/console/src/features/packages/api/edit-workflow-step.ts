import { workflowStepTypes, ZWorkflowStep, type TWorkflowStep } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { packageQueryKey } from './get-package';

export const ZEditWorkflowStepInput = z.object({
  dsiId: z.string(),
  workflowStepId: z.string(),
  type: z.enum(workflowStepTypes),
  name: z.string(),
  instructions: z.string(),
  deviceTemplateId: z.string().nullable(),
});
export type EditWorkflowStepInput = z.infer<typeof ZEditWorkflowStepInput>;

export function editWorkflowStep(input: EditWorkflowStepInput): Promise<TWorkflowStep> {
  return apiRequest('POST /ui/package/workflow/edit', ZWorkflowStep, { body: ZEditWorkflowStepInput.parse(input) });
}

export function useEditWorkflowStep() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: editWorkflowStep,
    onSuccess: (_step, input) => queryClient.invalidateQueries({ queryKey: packageQueryKey(input.dsiId) }),
  });
}
