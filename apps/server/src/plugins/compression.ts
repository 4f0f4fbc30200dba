import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { routeHooks } from './request-steps.js';

/** Answers smaller than this go as they are: compressing them saves less than its headers cost. */
export const compressionThreshold = 1024;
/** Above this an answer is compressed on the thread pool, below it at once (faster for small ones). */
const asyncThreshold = 64 * 1024;
/** The encodings offered, in the server's order of preference. */
const encodings = ['br', 'gzip'] as const;
type Encoding = (typeof encodings)[number];

/** Text types worth compressing: JSON, XML and text (lists, details, the OpenAPI document, metrics). */
const compressibleType = /^(?:application\/(?:[\w.+-]+\+)?(?:json|xml)|text\/[\w.+-]+)\s*(?:;|$)/i;

// brotli at quality 4 compresses JSON better than gzip at level 6 and about as fast
const brotliOptions = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
const gzipOptions = { level: 6 };
const compressSync: Record<Encoding, (input: Buffer) => Buffer> = {
  br: (input) => zlib.brotliCompressSync(input, brotliOptions),
  gzip: (input) => zlib.gzipSync(input, gzipOptions),
};
const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);
const compressAsync: Record<Encoding, (input: Buffer) => Promise<Buffer>> = {
  br: (input) => brotliAsync(input, brotliOptions),
  gzip: (input) => gzipAsync(input, gzipOptions),
};

/**
 * Compresses the answers to GET requests (lists, details, the OpenAPI document, metrics, the
 * console's config) of 1 KiB and more, with brotli or gzip as the client's `Accept-Encoding`
 * allows; `Vary: Accept-Encoding` on every answer that could be. Only GET answers and those of
 * POST searches that say so (`config.compressAnswer`, the quality search): another POST answer
 * may carry a secret chosen by the server (a session token, a client secret) beside text the
 * caller sent, which compression would let an eavesdropper guess at (BREACH); GET answers here
 * carry none. Streamed answers (file downloads, the console's files, which the build compresses
 * ahead) and answers already encoded go as they are. Requests are never decompressed.
 */
export function registerCompression(app: FastifyInstance): void {
  const hook: onSendHookHandler = (request, reply, payload, done) => {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload : null;
    if (body === null || body.length < compressionThreshold || !compressible(reply)) return done(null, payload);
    reply.header('vary', varyWithAcceptEncoding(reply.getHeader('vary')));
    const encoding = chosenEncoding(request);
    if (encoding === undefined) return done(null, payload);
    const input = typeof body === 'string' ? Buffer.from(body) : body;
    const send = (compressed: Buffer) => {
      reply.header('content-encoding', encoding);
      reply.removeHeader('content-length');
      done(null, compressed);
    };
    if (input.length < asyncThreshold) return send(compressSync[encoding](input));
    compressAsync[encoding](input).then(send, (error: Error) => done(error));
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET') && route.config?.compressAnswer !== true) return;
    route.onSend = [...routeHooks(route.onSend), hook];
  });
}

function compressible(reply: FastifyReply): boolean {
  if (reply.hasHeader('content-encoding')) return false;
  // Fastify has set the type of what it serialised (JSON) by now; an untyped buffer is not text
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && compressibleType.test(type);
}

function chosenEncoding(request: FastifyRequest): Encoding | undefined {
  const accepted = request.headers['accept-encoding'];
  if (!accepted) return undefined;
  const chosen = negotiate(accepted, encodings as unknown as string[]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : undefined;
}

function varyWithAcceptEncoding(vary: unknown): string {
  const current = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  if (current === '') return 'Accept-Encoding';
  return /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(current) ? current : `${current}, Accept-Encoding`;
}
