import { ZDashboard } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { apiRequest } from '../../../lib/api-client';

/** How often the dashboard refreshes while it answers. */
export const dashboardRefreshMs = 30_000;
/** The longest wait between refreshes while it fails. */
export const dashboardMaxBackoffMs = 5 * 60_000;

/**
 * The wait before the next refresh: the interval while the server answers, doubled for each
 * failure in a row (60 s, 120 s …) up to five minutes.
 */
export function dashboardRefreshDelay(failuresInARow: number): number {
  if (failuresInARow <= 0) return dashboardRefreshMs;
  return Math.min(dashboardRefreshMs * 2 ** failuresInARow, dashboardMaxBackoffMs);
}

export function dashboardQueryOptions() {
  return queryOptions({
    queryKey: ['dashboard'],
    queryFn: ({ signal }) => apiRequest('GET /ui/dashboard', ZDashboard, { signal }),
  });
}

/**
 * The home dashboard's figures (`GET /ui/dashboard`): one request per interval per tab, none while
 * the tab is hidden (TanStack Query pauses intervals in the background), one when the tab regains
 * focus; a failure is not retried at once but waits for the next, longer interval.
 */
export function useDashboard() {
  // errors counted up to the last answer: the failures in a row are the errors since
  const errorsAtLastAnswer = useRef(0);
  return useQuery({
    ...dashboardQueryOptions(),
    retry: false,
    refetchOnWindowFocus: true,
    refetchIntervalInBackground: false,
    refetchInterval: (query) => {
      const { status, errorUpdateCount } = query.state;
      if (status !== 'error') errorsAtLastAnswer.current = errorUpdateCount;
      return dashboardRefreshDelay(errorUpdateCount - errorsAtLastAnswer.current);
    },
  });
}
