import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { FastifyInstance } from 'fastify';
import { isApiPath } from '../lib/api-paths.js';
import { onEveryRequest } from './request-steps.js';

/**
 * The console keeps its session token in a cookie that script can read (spec §3), so the
 * Content-Security-Policy is what stands between an injected script and a stolen session: no
 * inline or foreign script, nothing framed, nothing sent elsewhere. Mantine sets inline `style`
 * attributes, hence `style-src 'unsafe-inline'` (styles cannot run code).
 */
export const contentSecurityPolicy = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Security headers on every reply (console and API), HSTS only when the canonical address is
 * https, and `Cache-Control: no-store` on API replies (they carry tokens and personal data) that
 * do not choose their own caching: it is set on arrival, so a reply that sets its own replaces it.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string): Promise<void> {
  const https = new URL(publicUrl).protocol === 'https:';
  const hsts = https ? { maxAge: 31_536_000, includeSubDomains: true } : false;
  const documentHeaders = helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: hsts,
    frameguard: { action: 'deny' },
  });
  const apiHeaders = {
    ...apiReplyHeaders,
    ...(https ? { 'Strict-Transport-Security': documentHeaders['Strict-Transport-Security']! } : {}),
    'Cache-Control': 'no-store',
  };
  const api = headerList(apiHeaders);
  const document = headerList(documentHeaders);
  onEveryRequest(app, (request, reply) => {
    const headers = isApiPath(request.url) ? api : document;
    for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]);
  });
}

/**
 * `headers` as one flat list of lower-case names and values: Fastify lower-cases every name it
 * is given, and a name that is already lower case stays the same (interned) string, so storing
 * it needs no look-up of a freshly made one.
 */
function headerList(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => [name.toLowerCase(), value]);
}

/**
 * API replies (JSON, XML, files) are never rendered as pages of the console, so they get the
 * OWASP REST set instead of the document set: a policy under which nothing in them can run or be
 * framed, no sniffing into another type, no referrer (and `Cache-Control: no-store`, above).
 */
const apiReplyHeaders: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The headers Helmet sets with `options`, worked out once: the same for every request (no nonces),
 * so there is no reason to run Helmet's middleware (which re-reads its options) per request.
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  } as unknown as ServerResponse;
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response, (error?: unknown) => (failure = error));
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return headers;
}
