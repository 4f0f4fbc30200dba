import { QueryClient } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setTestConsoleConfig } from '../test/console-config';
import { consoleConfigQueryKey, getConsoleConfig, setConsoleConfig, useConsoleConfig } from './console-config';

const served = {
  siteName: 'Plant 7',
  closedFunctions: ['trace'],
  publicUrl: 'http://localhost',
  secureCookies: false,
  cookieDomain: null,
  version: '3',
};

describe('console configuration', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('keeps the same object and re-renders no screen when a read answers what it holds; a change re-renders', () => {
    setTestConsoleConfig({ siteName: 'Plant 7' });
    const before = getConsoleConfig();
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useConsoleConfig();
    });
    expect(renders).toBe(1);

    act(() => setConsoleConfig({ ...before, closedFunctions: [...before.closedFunctions] }));
    expect(getConsoleConfig()).toBe(before);
    expect(result.current).toBe(before);
    expect(renders).toBe(1);

    act(() => setConsoleConfig({ ...before, closedFunctions: ['quality'] }));
    expect(result.current.closedFunctions).toEqual(['quality']);
    expect(renders).toBe(2);
  });

  it('is fresh as read at the start: a screen mounted at once does not ask the server again', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-29T10:00:00Z'), toFake: ['Date'] });
    const fetched: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        fetched.push(url);
        return new Response(JSON.stringify(served), { headers: { 'Content-Type': 'application/json' } });
      }),
    );
    // the module as a page starts it: nothing read yet
    vi.resetModules();
    const fresh = await import('./console-config');
    await fresh.loadConsoleConfig();
    expect(fetched).toEqual(['/console-config.json']);

    const client = new QueryClient({ defaultOptions: { queries: { staleTime: 2_000 } } });
    await client.prefetchQuery(fresh.consoleConfigQueryOptions());
    expect(fetched).toEqual(['/console-config.json']);
    expect(client.getQueryState(consoleConfigQueryKey)?.dataUpdatedAt).toBe(Date.parse('2026-11-29T10:00:00Z'));
    expect(client.getQueryData(consoleConfigQueryKey)).toEqual(served);
  });
});
