import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isRetryable } from './api-errors';
import { isEscalationRequired, requestEscalation } from './escalation';

/** Cache rules of spec §9. */
export const queryDefaults = {
  staleTime: 2_000,
  gcTime: 5 * 60_000,
  maxRetries: 3,
  firstRetryDelay: 1_000,
  maxRetryDelay: 30_000,
} as const;

export function shouldRetry(failureCount: number, error: unknown): boolean {
  return failureCount < queryDefaults.maxRetries && isRetryable(error);
}

/** 1 s, 2 s, 4 s … capped at 30 s; `attempt` counts from 0 as TanStack Query passes it. */
export function retryDelay(attempt: number): number {
  return Math.min(queryDefaults.firstRetryDelay * 2 ** attempt, queryDefaults.maxRetryDelay);
}

/** A refusal that asks for a security-key confirmation opens the escalation prompt, from any screen. */
function promptOnEscalation(error: unknown): void {
  if (isEscalationRequired(error)) requestEscalation();
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: promptOnEscalation }),
    mutationCache: new MutationCache({ onError: promptOnEscalation }),
    defaultOptions: {
      queries: {
        staleTime: queryDefaults.staleTime,
        gcTime: queryDefaults.gcTime,
        refetchOnMount: true,
        refetchOnWindowFocus: true,
        refetchInterval: false,
        retry: shouldRetry,
        retryDelay,
      },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();
