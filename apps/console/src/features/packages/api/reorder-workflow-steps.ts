import { ZWorkflowSteps, type TPackageDetail, type TWorkflowStep } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { packageQueryKey } from './get-package';

export const ZReorderWorkflowStepsInput = z.object({ dsiId: z.string(), stepIds: z.array(z.string()) });
export type ReorderWorkflowStepsInput = z.infer<typeof ZReorderWorkflowStepsInput>;

export function reorderWorkflowSteps(input: ReorderWorkflowStepsInput) {
  return apiRequest('POST /ui/package/workflow/reorder', ZWorkflowSteps, { body: ZReorderWorkflowStepsInput.parse(input) });
}

/** The steps in the order of `stepIds`, renumbered; steps not named keep their place at the end. */
export function orderSteps(steps: readonly TWorkflowStep[], stepIds: readonly string[]): TWorkflowStep[] {
  const byId = new Map(steps.map((step) => [step.workflowStepId, step]));
  const named = stepIds.flatMap((id) => {
    const step = byId.get(id);
    return step ? [step] : [];
  });
  const rest = steps.filter((step) => !stepIds.includes(step.workflowStepId));
  return [...named, ...rest].map((step, index) => ({ ...step, position: index + 1 }));
}

/** Moves one item from `from` to `to` (indexes), answering a new array. */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  const next = [...items];
  const [moved] = next.splice(from, 1);
  if (moved === undefined) return next;
  next.splice(Math.max(0, Math.min(to, next.length)), 0, moved);
  return next;
}

/** Reorders at once on screen; the server's answer (or the old order, on failure) replaces it. */
export function useReorderWorkflowSteps() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reorderWorkflowSteps,
    onMutate: async (input) => {
      const key = packageQueryKey(input.dsiId);
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<TPackageDetail>(key);
      if (previous)
        queryClient.setQueryData<TPackageDetail>(key, { ...previous, steps: orderSteps(previous.steps, input.stepIds) });
      return { previous };
    },
    onError: (_error, input, context) => {
      if (context?.previous) queryClient.setQueryData(packageQueryKey(input.dsiId), context.previous);
    },
    onSuccess: (result, input) => {
      const key = packageQueryKey(input.dsiId);
      const current = queryClient.getQueryData<TPackageDetail>(key);
      if (current) queryClient.setQueryData<TPackageDetail>(key, { ...current, steps: result.data });
    },
    onSettled: (_result, _error, input) => queryClient.invalidateQueries({ queryKey: packageQueryKey(input.dsiId) }),
  });
}
