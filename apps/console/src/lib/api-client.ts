import { accessOf, type RouteKey } from '@manifold/contract';
import type { z } from 'zod';
import { abortedError, ApiError, apiMessages, errorFromResponse, InvalidSessionError, networkError } from './api-errors';
import { redirectToLogin } from './login-redirect';
import { clearSessionToken, getSessionToken, missingSessionReason } from './session-token';

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  /** Query-string values; null and undefined are left out (spec §5). */
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Values of the route's `:name` segments (encoded here). */
  params?: Record<string, string>;
  signal?: AbortSignal;
  /** Whether a 401 (or a missing session) sends the user to /login. Default true. */
  redirectOnUnauthorized?: boolean;
}

export const apiVersion = '1';

const successStatuses = new Set([200, 201, 202]);

function splitRoute(route: RouteKey): { method: string; path: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space), path: route.slice(space + 1) };
}

function needsSession(route: RouteKey): boolean {
  const access = accessOf(route);
  return access === 'anyRole' || access === 'admin';
}

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === null || value === undefined) continue;
    params.append(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** The token for a call; when a needed token is missing, the §8 refusal ("you must log in", or the expiry after a 401). */
function tokenFor(route: RouteKey, redirect: boolean): string | undefined {
  const token = getSessionToken();
  if (!token && needsSession(route)) {
    const reason = missingSessionReason();
    if (redirect) redirectToLogin(reason);
    throw reason === 'sessionExpired'
      ? new InvalidSessionError()
      : new InvalidSessionError(apiMessages.loginRequired, 'loginRequired');
  }
  return token;
}

/**
 * Whether a 401 refused a token this console no longer holds: the session cookie is shared by
 * every tab, and another tab may have refreshed the session (ending the token this call carried)
 * or logged in again while the call was on its way. The new token is not this refusal's.
 */
function refusedStaleToken(status: number, sent: string | undefined): boolean {
  const current = getSessionToken();
  return status === 401 && sent !== undefined && current !== undefined && current !== sent;
}

function onFailure(error: ApiError, redirect: boolean, sent: string | undefined): ApiError {
  if (error.status === 401 && !refusedStaleToken(error.status, sent)) {
    clearSessionToken('refused');
    if (redirect) redirectToLogin('sessionExpired');
  }
  return error;
}

function parseJson(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function parseSuccess<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  console.error('The server answered with an unexpected shape', parsed.error);
  throw new ApiError('server', apiMessages.server, 200);
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof DOMException && error.name === 'AbortError');
}

/** Calls a console route (spec §7) and maps every failure to the errors of spec §8. */
export async function apiRequest<T>(route: RouteKey, schema: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
  const redirect = options.redirectOnUnauthorized ?? true;
  const token = tokenFor(route, redirect);
  let sent = token;
  let { status, body } = await send(route, sent, options);
  if (refusedStaleToken(status, sent)) {
    // a 401 is answered before anything is done: refused for a token another tab replaced
    // meanwhile, the call is made once more with the token now in force
    sent = getSessionToken();
    ({ status, body } = await send(route, sent, options));
  }
  if (successStatuses.has(status)) return parseSuccess(schema, body);
  throw onFailure(errorFromResponse(status, body), redirect, sent);
}

/** One round trip of {@link apiRequest}: the answer's status and parsed body. */
async function send(
  route: RouteKey,
  token: string | undefined,
  options: RequestOptions,
): Promise<{ status: number; body: unknown }> {
  const { method, path } = splitRoute(route);
  const headers: Record<string, string> = { Accept: 'application/json', 'X-API-Version': apiVersion };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers, signal: options.signal ?? null };
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }

  let response: Response;
  let text: string;
  try {
    response = await fetch(buildUrl(fillPath(path, options.params), options.query), init);
    text = await response.text();
  } catch (error) {
    throw isAbort(error, options.signal) ? abortedError() : networkError();
  }
  return { status: response.status, body: parseJson(text) };
}

export interface DownloadOptions {
  query?: Record<string, QueryValue>;
  /** Values of the route's `:name` segments (encoded here). */
  params?: Record<string, string>;
  signal?: AbortSignal;
  redirectOnUnauthorized?: boolean;
}

export interface Download {
  blob: Blob;
  /** The file name of the answer's content-disposition, if any. */
  fileName: string | undefined;
}

/** `/ui/x/:image` with its parameters filled in. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for ${whole} in ${path}`);
    return encodeURIComponent(value);
  });
}

/** The file name of a content-disposition header (RFC 6266: filename* first, then filename). */
export function dispositionFileName(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*=(?:UTF-8'[^']*')?([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain?.[1];
}

/** Fetches a binary answer (a file, an image) with the session token; failures as in spec §8. */
export async function apiDownload(route: RouteKey, options: DownloadOptions = {}): Promise<Download> {
  const redirect = options.redirectOnUnauthorized ?? true;
  const { method, path } = splitRoute(route);
  const token = tokenFor(route, redirect);
  const headers: Record<string, string> = { 'X-API-Version': apiVersion };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(buildUrl(fillPath(path, options.params), options.query), {
      method,
      headers,
      signal: options.signal ?? null,
    });
  } catch (error) {
    throw isAbort(error, options.signal) ? abortedError() : networkError();
  }
  if (!successStatuses.has(response.status)) {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // the body is not needed to name the failure
    }
    throw onFailure(errorFromResponse(response.status, parseJson(text)), redirect, token);
  }
  try {
    const blob = await response.blob();
    return { blob, fileName: dispositionFileName(response.headers.get('content-disposition')) };
  } catch (error) {
    throw isAbort(error, options.signal) ? abortedError() : networkError();
  }
}

export type UploadFieldValue = string | number | boolean | Blob | readonly Blob[] | null | undefined;

export interface UploadOptions {
  fields: Record<string, UploadFieldValue>;
  /** Called with the sent fraction, 0 to 1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  redirectOnUnauthorized?: boolean;
}

/** Multipart form of an upload; empty values are left out (spec §5); a list of files repeats its field. */
export function uploadForm(fields: Record<string, UploadFieldValue>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const file of value as readonly Blob[]) form.append(key, file);
    else form.append(key, value instanceof Blob ? value : String(value));
  }
  return form;
}

/** Uploads a multipart form with XMLHttpRequest so progress can be reported. */
export function apiUpload<T>(route: RouteKey, schema: z.ZodType<T>, options: UploadOptions): Promise<T> {
  const redirect = options.redirectOnUnauthorized ?? true;
  const { method, path } = splitRoute(route);
  return new Promise<T>((resolve, reject) => {
    let token: string | undefined;
    try {
      token = tokenFor(route, redirect);
    } catch (error) {
      reject(error as Error);
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-API-Version', apiVersion);
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) options.onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = parseJson(xhr.responseText);
      if (successStatuses.has(xhr.status)) {
        options.onProgress?.(1);
        try {
          resolve(parseSuccess(schema, body));
        } catch (error) {
          reject(error as Error);
        }
        return;
      }
      reject(onFailure(errorFromResponse(xhr.status, body), redirect, token));
    };
    xhr.onerror = () => reject(networkError());
    xhr.onabort = () => reject(abortedError());
    if (options.signal) {
      if (options.signal.aborted) {
        reject(abortedError());
        return;
      }
      options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(uploadForm(options.fields));
  });
}
