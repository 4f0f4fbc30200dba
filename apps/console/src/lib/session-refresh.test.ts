import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setTestConsoleConfig } from '../test/console-config';
import { scheduleSessionRefresh, tokenExpiry } from './session-refresh';
import { getSessionToken, setSessionToken } from './session-token';

function jwt(payload: object): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}.signature`;
}

describe('session refresh', () => {
  beforeEach(() => {
    setTestConsoleConfig();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('reads the expiry of a JWT and ignores anything else', () => {
    expect(tokenExpiry(jwt({ exp: 1_700_000_000 }))).toBe(1_700_000_000_000);
    expect(tokenExpiry('opaque-token')).toBeUndefined();
    expect(tokenExpiry('a.!!!.c')).toBeUndefined();
  });

  it('renews the token five minutes before it expires and stores the new one', async () => {
    const now = Date.now();
    setSessionToken(jwt({ exp: Math.floor(now / 1000) + 3600 }));
    const renewed = jwt({ exp: Math.floor(now / 1000) + 7200 });
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ sessionToken: renewed }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);

    const cancel = scheduleSessionRefresh();
    await vi.advanceTimersByTimeAsync(3600_000 - 5 * 60_000 - 1_000);
    expect(fetchMock).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]).toEqual(['/ui/user/refresh', expect.objectContaining({ method: 'POST' })]);
    expect(getSessionToken()).toBe(renewed);
    cancel();
  });

  it('does nothing once cancelled', async () => {
    setSessionToken(jwt({ exp: Math.floor(Date.now() / 1000) + 600 }));
    const fetchMock = vi.fn(async () => new Response('{}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    scheduleSessionRefresh()();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
