import { type QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { ApiError, BadRequestError, InvalidSessionError, networkError } from './api-errors';
import { createQueryClient, queryDefaults, retryDelay, shouldRetry } from './query-client';

describe('query cache', () => {
  it('has the settings of spec §9', () => {
    const options = createQueryClient().getDefaultOptions().queries;
    expect(options?.staleTime).toBe(2000);
    expect(options?.gcTime).toBe(300_000);
    expect(options?.refetchOnMount).toBe(true);
    expect(options?.refetchOnWindowFocus).toBe(true);
    expect(options?.refetchInterval).toBe(false);
    expect(queryDefaults.maxRetries).toBe(3);
  });

  it('retries network failures and 5xx answers up to three times', () => {
    const server = new ApiError('server', 'Oops', 503);
    expect(shouldRetry(0, networkError())).toBe(true);
    expect(shouldRetry(2, server)).toBe(true);
    expect(shouldRetry(3, server)).toBe(false);
  });

  it('never retries 4xx answers', () => {
    expect(shouldRetry(0, new InvalidSessionError())).toBe(false);
    expect(shouldRetry(0, new BadRequestError('bad', 420, []))).toBe(false);
    expect(shouldRetry(0, new ApiError('forbidden', 'no', 403))).toBe(false);
    expect(shouldRetry(0, new Error('other'))).toBe(false);
  });

  it('waits 1 s, doubling, at most 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

describe('invalidation', () => {
  /**
   * A list whose first load reaches the server before a change and is answered after it: the
   * data the client keeps once `invalidate` (announcing the change) has settled.
   */
  async function afterFirstLoadRacingAChange(invalidate: (client: QueryClient) => Promise<void>) {
    const client = createQueryClient();
    let rows: string[] = [];
    const pending: (() => void)[] = [];
    const observer = new QueryObserver(client, {
      queryKey: ['registrations', 'protect'],
      queryFn: () => {
        const read = [...rows]; // what the server reads when the request reaches it
        return new Promise<string[]>((resolve) => pending.push(() => resolve(read)));
      },
    });
    const unsubscribe = observer.subscribe(() => undefined);
    try {
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(pending).toHaveLength(1); // the first load is on its way
      rows = ['pair 1']; // the change, made and answered meanwhile
      let settled = false;
      const invalidated = invalidate(client).then(() => (settled = true));
      // the server answers whatever was asked, until the invalidation has settled
      while (!settled) {
        for (const answer of pending.splice(0)) answer();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      await invalidated;
      return client.getQueryData<string[]>(['registrations', 'protect']);
    } finally {
      unsubscribe();
    }
  }

  it('asks again when a first load is still on its way, so the change shows', async () => {
    expect(await afterFirstLoadRacingAChange((client) => client.invalidateQueries({ queryKey: ['registrations'] }))).toEqual([
      'pair 1',
    ]);
  });

  it('leaves a first load alone when told not to refetch', async () => {
    expect(
      await afterFirstLoadRacingAChange((client) =>
        client.invalidateQueries({ queryKey: ['registrations'], refetchType: 'none' }),
      ),
    ).toEqual([]);
  });
});
