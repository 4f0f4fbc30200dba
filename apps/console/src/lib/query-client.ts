import {
  type InvalidateOptions,
  type InvalidateQueryFilters,
  MutationCache,
  QueryCache,
  QueryClient,
} from '@tanstack/react-query';
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

/**
 * A QueryClient whose invalidation always asks the server again. TanStack Query's own joins an
 * invalidation to a fetch already running when the query has no data yet (a screen's first load,
 * a list's new page): that fetch may have been answered before the change the invalidation
 * announces, and its answer then stays on screen (a token pair made while the Protect list was
 * still loading did not appear). Such a fetch is cancelled first, as TanStack Query itself does
 * with a running fetch of a query that has data, so the refetch starts anew.
 */
class ChangeAwareQueryClient extends QueryClient {
  override invalidateQueries(filters?: InvalidateQueryFilters, options?: InvalidateOptions): Promise<void> {
    if (filters?.refetchType !== 'none' && options?.cancelRefetch !== false) {
      // the queries the invalidation refetches (QueryClient.refetchQueries' own choice), and only
      // those: a silently cancelled fetch stays marked as fetching until another one starts
      const refetched = this.getQueryCache().findAll({ ...filters, type: filters?.refetchType ?? filters?.type ?? 'active' });
      for (const query of refetched) {
        if (query.state.fetchStatus !== 'idle' && query.state.data === undefined && !query.isDisabled() && !query.isStatic())
          void query.cancel({ silent: true });
      }
    }
    return super.invalidateQueries(filters, options);
  }
}

export function createQueryClient(): QueryClient {
  return new ChangeAwareQueryClient({
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
