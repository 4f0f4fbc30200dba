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
