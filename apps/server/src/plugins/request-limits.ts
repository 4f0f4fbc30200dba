import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TimeoutConfig } from '../config.js';
import { onEveryRequest } from './request-steps.js';

/** Node's own limits: headers, the whole request, idle kept-alive connections. */
export function serverTimeouts(timeouts: TimeoutConfig): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs), connectionsCheckingInterval: 1000 },
  };
}

function hasBody(raw: IncomingMessage): boolean {
  const length = Number(raw.headers['content-length'] ?? 0);
  return length > 0 || raw.headers['transfer-encoding'] !== undefined;
}

const SAMPLE_MS = 1000;

/**
 * Bodies that dribble in are cut off: a body that is not an upload must arrive whole within
 * `bodyMs`; an upload must then keep at least `uploadMinBytesPerSecond` over the last `bodyMs`.
 * A reply sent before its request body was read (a refused upload: 413, or a 420 before the
 * file) closes the connection, so the unread rest is never taken for the next request
 * (`closeUnlessReadWhole`).
 */
export function registerRequestLimits(app: FastifyInstance, timeouts: TimeoutConfig): void {
  onEveryRequest(app, (request, reply) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(raw)) return;
    closeUnlessReadWhole(raw, reply.raw);
    const socket = raw.socket;
    // requests injected in-process (tests) have no network socket to watch
    if (!(socket instanceof Socket)) return;
    const upload = (raw.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');
    const started = Date.now();
    const samples: number[] = [socket.bytesRead];
    const window = Math.max(1, Math.round(timeouts.bodyMs / SAMPLE_MS));
    const timer = setInterval(() => {
      if (raw.complete || socket.destroyed) return stop();
      samples.push(socket.bytesRead);
      if (samples.length > window + 1) samples.shift();
      if (Date.now() - started < timeouts.bodyMs) return;
      const received = samples[samples.length - 1]! - samples[0]!;
      const rate = received / ((samples.length - 1) * (SAMPLE_MS / 1000));
      if (!upload || rate < timeouts.uploadMinBytesPerSecond) {
        request.log.warn({ upload, rate: Math.round(rate) }, 'request body too slow: connection closed');
        socket.destroy();
        stop();
      }
    }, SAMPLE_MS);
    timer.unref();
    const stop = () => clearInterval(timer);
    raw.once('end', stop);
    raw.once('close', stop);
  });
}

/**
 * The reply to a request whose body has not arrived yet closes the connection (Node then writes
 * `Connection: close`) unless the body is read to its end before the reply starts: a refused
 * upload's unread rest is never read as the next request, nor read at all. Decided on arrival,
 * so the many requests without a body pay nothing when they are answered.
 */
function closeUnlessReadWhole(raw: IncomingMessage, response: ServerResponse): void {
  const keepAlive = response.shouldKeepAlive;
  response.shouldKeepAlive = false;
  raw.once('end', () => {
    if (!response.headersSent) response.shouldKeepAlive = keepAlive;
  });
}

/**
 * Behind a reverse proxy without `TRUST_PROXY=true` every request seems to come from the proxy,
 * so per-address login throttling would count everyone together: say so once, loudly.
 */
export function warnOnForwardingHeaders(app: FastifyInstance): void {
  let warned = false;
  onEveryRequest(app, (request) => {
    const headers = request.headers;
    if (warned || (headers['x-forwarded-for'] === undefined && headers.forwarded === undefined)) return;
    warned = true;
    request.log.warn(
      "requests arrive with X-Forwarded-For/Forwarded headers but TRUST_PROXY is off: client addresses are the proxy's; " +
        'set TRUST_PROXY=true if a reverse proxy you control sets them',
    );
  });
}
