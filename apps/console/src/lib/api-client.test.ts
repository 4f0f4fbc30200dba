import { ZEmpty, ZUserProfile } from '@manifold/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { apiDownload, apiRequest, apiUpload, buildUrl, uploadForm } from './api-client';
import { ApiError, BadRequestError, InvalidSessionError } from './api-errors';
import { setTestConsoleConfig } from '../test/console-config';
import { FakeXhr } from '../test/fake-xhr';
import { setLoginNavigator } from './login-redirect';
import { getSessionToken, setSessionToken } from './session-token';

const profile = {
  username: 'admin',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: null,
  role: 'ADMIN',
  timeZone: 'Europe/London',
  language: 'en_US',
  useSso: false,
  dateCreated: '2025-01-01T00:00:00.000Z',
};

function respond(status: number, body?: unknown) {
  const fetchMock = vi.fn(
    async (_url: string, _init?: RequestInit) => new Response(body === undefined ? '' : JSON.stringify(body), { status }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

let navigations: string[] = [];

beforeEach(() => {
  setTestConsoleConfig({ publicUrl: 'http://localhost:3000' });
  navigations = [];
  setLoginNavigator((to) => navigations.push(to));
  window.history.replaceState(null, '', '/users?pageNum=2');
  setSessionToken('token-1');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('apiRequest', () => {
  it('sends the bearer token, the API version and a JSON body, and parses the answer', async () => {
    const fetchMock = respond(200, profile);
    const result = await apiRequest('POST /ui/user/edit', ZUserProfile, { body: { username: 'admin' } });
    expect(result.username).toBe('admin');
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/ui/user/edit');
    expect(init?.method).toBe('POST');
    expect(init?.headers).toMatchObject({
      Authorization: 'Bearer token-1',
      'X-API-Version': '1',
      'Content-Type': 'application/json',
    });
    expect(init?.body).toBe('{"username":"admin"}');
  });

  it('accepts 201 and 202 as success', async () => {
    respond(201, {});
    await expect(apiRequest('POST /ui/user/delete', ZEmpty, { body: {} })).resolves.toEqual({});
    respond(202, {});
    await expect(apiRequest('POST /ui/user/delete', ZEmpty, { body: {} })).resolves.toEqual({});
  });

  it('leaves null and undefined query values out', async () => {
    const fetchMock = respond(200, { data: [], pageNum: 1, numberOfItems: 10, totalNumOfPages: 0, totalNumOfItems: 0 });
    await apiRequest('GET /ui/user/list', z.unknown(), {
      query: { pageNum: 1, search: null, numberOfItems: undefined, flag: false },
    });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/ui/user/list?pageNum=1&flag=false');
    expect(buildUrl('/ui/x', { a: undefined })).toBe('/ui/x');
  });

  it('calls anonymous routes without a token', async () => {
    document.cookie = 'sessionToken=; Max-Age=0; Path=/';
    const fetchMock = respond(200, { step: 'database' });
    await apiRequest('GET /ui/admin/state', z.object({ step: z.string() }));
    expect(fetchMock.mock.calls[0]?.[1]?.headers).not.toHaveProperty('Authorization');
  });

  it('refuses a call that needs a session when there is no token, and goes to /login', async () => {
    document.cookie = 'sessionToken=; Max-Age=0; Path=/';
    const fetchMock = respond(200, {});
    const error = await failure(apiRequest('GET /ui/user/list', z.unknown()));
    expect(error).toBeInstanceOf(InvalidSessionError);
    expect(error.message).toBe('You must log in to continue');
    expect(error.kind).toBe('loginRequired');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(navigations).toEqual(['/login?reason=loginRequired&redirect=%2Fusers%3FpageNum%3D2']);
  });

  it('maps 401 to an invalid-session error, drops the token and goes to /login with the return address', async () => {
    respond(401, { errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' });
    const error = await failure(apiRequest('GET /ui/user/list', z.unknown()));
    expect(error).toBeInstanceOf(InvalidSessionError);
    expect(error.message).toBe('Invalid session token');
    expect(getSessionToken()).toBeUndefined();
    expect(navigations).toEqual(['/login?reason=sessionExpired&redirect=%2Fusers%3FpageNum%3D2']);
  });

  it('sends a call that starts after another met a 401 to /login with the same expiry message', async () => {
    // screens call side by side: the first refusal drops the token, the next call finds none
    const fetchMock = respond(401, { errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' });
    await failure(apiRequest('GET /ui/user/list', z.unknown()));
    const error = await failure(apiRequest('GET /ui/groups/list', z.unknown()));
    expect(error).toBeInstanceOf(InvalidSessionError);
    expect(error.kind).toBe('invalidSession');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(navigations).toEqual([
      '/login?reason=sessionExpired&redirect=%2Fusers%3FpageNum%3D2',
      '/login?reason=sessionExpired&redirect=%2Fusers%3FpageNum%3D2',
    ]);
    // a new login starts afresh: no token then means no login yet
    setSessionToken('token-2');
    document.cookie = 'sessionToken=; Max-Age=0; Path=/';
    expect((await failure(apiRequest('GET /ui/user/list', z.unknown()))).kind).toBe('loginRequired');
  });

  it('repeats a call refused for a token another tab replaced meanwhile with the new one, keeping it', async () => {
    // another tab refreshed the session (the cookie is shared) while this call was on its way with
    // the token the refresh ended: the refusal is of a token no longer in use
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) => {
      if ((init?.headers as Record<string, string>).Authorization === 'Bearer token-1') {
        setSessionToken('token-2');
        return new Response(JSON.stringify({ errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' }), {
          status: 401,
        });
      }
      return new Response(JSON.stringify(profile), { status: 200 });
    });
    vi.stubGlobal('fetch', fetchMock);
    const result = await apiRequest('POST /ui/user/edit', ZUserProfile, { body: { username: 'admin' } });
    expect(result.username).toBe('admin');
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(fetchMock.mock.calls[1]?.[1]?.headers).toMatchObject({ Authorization: 'Bearer token-2' });
    expect(getSessionToken()).toBe('token-2');
    expect(navigations).toEqual([]);

    // the new token refused as well: that one is this console's, and goes as any refused token
    setSessionToken('token-1');
    const refusing = vi.fn(async (_url: string, init?: RequestInit) => {
      if ((init?.headers as Record<string, string>).Authorization === 'Bearer token-1') setSessionToken('token-2');
      return new Response(JSON.stringify({ errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' }), {
        status: 401,
      });
    });
    vi.stubGlobal('fetch', refusing);
    expect(await failure(apiRequest('GET /ui/user/list', z.unknown()))).toBeInstanceOf(InvalidSessionError);
    expect(refusing).toHaveBeenCalledTimes(2);
    expect(getSessionToken()).toBeUndefined();
    expect(navigations).toEqual(['/login?reason=sessionExpired&redirect=%2Fusers%3FpageNum%3D2']);
  });

  it('leaves a token another tab put in place alone when a download or an upload with the old one is refused', async () => {
    const fetchMock = vi.fn(async () => {
      setSessionToken('token-2');
      return new Response(JSON.stringify({ errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' }), {
        status: 401,
      });
    });
    vi.stubGlobal('fetch', fetchMock);
    expect(await failure(apiDownload('GET /ui/queue/download', { query: { traceEventId: 'e' } }))).toBeInstanceOf(
      InvalidSessionError,
    );
    expect(getSessionToken()).toBe('token-2');
    setSessionToken('token-1');
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const upload = failure(apiUpload('POST /ui/event/upload', ZEmpty, { fields: { file: new Blob(['x']) } }));
    setSessionToken('token-2');
    FakeXhr.last!.answer(401, { errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' });
    expect(await upload).toBeInstanceOf(InvalidSessionError);
    expect(getSessionToken()).toBe('token-2');
    expect(navigations).toEqual([]);
  });

  it('uses the default invalid-session message when 401 has no body', async () => {
    respond(401);
    const error = await failure(apiRequest('GET /ui/user/list', z.unknown()));
    expect(error.message).toBe('Invalid session token');
  });

  it('does not redirect on 401 when the call turns redirects off', async () => {
    respond(401, { errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' });
    const error = await failure(apiRequest('GET /ui/user/login', z.unknown(), { redirectOnUnauthorized: false }));
    expect(error).toBeInstanceOf(InvalidSessionError);
    expect(navigations).toEqual([]);
  });

  it('maps 403 and 404 to their fixed messages', async () => {
    respond(403, { errorToken: 'actionNotAllowed', errorDescription: 'Forbidden' });
    const forbidden = await failure(apiRequest('POST /ui/user/add', z.unknown(), { body: {} }));
    expect(forbidden.message).toBe('Action not allowed');
    expect(forbidden.kind).toBe('forbidden');
    respond(404, { errorToken: 'entityDoesNotExist', errorDescription: 'gone' });
    const missing = await failure(apiRequest('POST /ui/user/edit', z.unknown(), { body: {} }));
    expect(missing.message).toBe('Entity does not exist');
    expect(missing.kind).toBe('notFound');
    expect(navigations).toEqual([]);
  });

  it.each([400, 406, 420])('maps %i to a bad-request error carrying the server description, token and field', async (status) => {
    respond(status, { errorToken: 'userEmailInvalid', errorDescription: 'Email is not a valid address', field: 'email' });
    const error = await failure(apiRequest('POST /ui/user/add', z.unknown(), { body: {} }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe('Email is not a valid address');
    expect(error.errorToken).toBe('userEmailInvalid');
    expect(error.field).toBe('email');
    expect(error.status).toBe(status);
  });

  it('maps 418 to a bad-request error whose list comes from data', async () => {
    const problems = [
      { errorToken: 'userFirstNameEmpty', errorDescription: 'First name is required', field: 'firstName' },
      { errorToken: 'userEmailInvalid', errorDescription: 'Email is not a valid address', field: 'email' },
    ];
    respond(418, { data: problems });
    const error = await failure(apiRequest('POST /ui/user/add', z.unknown(), { body: {} }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.problems).toEqual(problems);
    expect(error.message).toBe('First name is required; Email is not a valid address');
  });

  it.each([500, 501, 502, 409])('maps %i to the generic message', async (status) => {
    respond(status, { errorToken: 'functionNotImplemented', errorDescription: 'not here' });
    const error = await failure(apiRequest('GET /ui/admin/database', z.unknown()));
    expect(error.message).toBe('Oops! Something went wrong. Try again later.');
    expect(error.kind).toBe('server');
    expect(error.status).toBe(status);
  });

  it('maps a network failure to Service Unavailable', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    const error = await failure(apiRequest('GET /ui/user/list', z.unknown()));
    expect(error.message).toBe('Service Unavailable');
    expect(error.kind).toBe('network');
  });

  it('maps an aborted request to User aborted request', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init?: RequestInit) =>
          new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError')));
          }),
      ),
    );
    const controller = new AbortController();
    const pending = failure(apiRequest('GET /ui/user/list', z.unknown(), { signal: controller.signal }));
    controller.abort();
    const error = await pending;
    expect(error.message).toBe('User aborted request');
    expect(error.kind).toBe('aborted');
  });
});

describe('apiUpload', () => {
  beforeEach(() => vi.stubGlobal('XMLHttpRequest', FakeXhr));

  it('sends a multipart form without empty values and reports progress', async () => {
    const progress: number[] = [];
    const pending = apiUpload('POST /ui/user/edit', ZEmpty, {
      fields: { file: new Blob(['abc']), nodeId: 4, description: '', groups: null, extra: undefined },
      onProgress: (fraction) => progress.push(fraction),
    });
    const xhr = FakeXhr.last;
    if (!xhr) throw new Error('no request');
    expect(xhr.method).toBe('POST');
    expect(xhr.headers.Authorization).toBe('Bearer token-1');
    expect([...(xhr.body?.keys() ?? [])]).toEqual(['file', 'nodeId']);
    xhr.upload.onprogress?.({ lengthComputable: true, loaded: 50, total: 100 } as ProgressEvent);
    xhr.answer(200, {});
    await expect(pending).resolves.toEqual({});
    expect(progress).toEqual([0.5, 1]);
  });

  it('maps upload failures like any other call', async () => {
    const pending = failure(apiUpload('POST /ui/user/edit', ZEmpty, { fields: {} }));
    FakeXhr.last?.answer(420, { errorToken: 'storageNotEnabled', errorDescription: 'Storage is not enabled' });
    const error = await pending;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe('Storage is not enabled');
  });

  it('maps a network failure and an abort', async () => {
    const network = failure(apiUpload('POST /ui/user/edit', ZEmpty, { fields: {} }));
    FakeXhr.last?.onerror?.();
    expect((await network).message).toBe('Service Unavailable');
    const controller = new AbortController();
    const aborted = failure(apiUpload('POST /ui/user/edit', ZEmpty, { fields: {}, signal: controller.signal }));
    controller.abort();
    expect((await aborted).message).toBe('User aborted request');
  });

  it('builds upload forms without null, undefined or empty values', () => {
    const form = uploadForm({ a: 'x', b: '', c: null, d: undefined, e: 0, f: false });
    expect([...form.entries()]).toEqual([
      ['a', 'x'],
      ['e', '0'],
      ['f', 'false'],
    ]);
  });
});
