import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { deferredChildLogger } from './request-logger.js';

function capturedLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('deferredChildLogger', () => {
  it("makes a request's child logger only when it writes a line, and that line carries the request id", async () => {
    const { logger, lines } = capturedLogger('warn');
    const child = vi.spyOn(logger, 'child');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: deferredChildLogger });
    app.get('/quiet', async (request) => {
      request.log.info('not written at warn');
      request.log.debug({ detail: 1 }, 'nor this');
      return { ok: true };
    });
    app.get('/loud', async (request) => {
      request.log.warn({ upload: true }, 'first');
      request.log.info('below the level');
      request.log.error('second');
      return { ok: true, level: request.log.level };
    });
    try {
      await app.ready();
      child.mockClear(); // what Fastify made while starting
      const quiet = await app.inject({ method: 'GET', url: '/quiet' });
      expect(quiet.statusCode).toBe(200);
      expect(child).not.toHaveBeenCalled();
      expect(lines).toEqual([]);

      const loud = await app.inject({ method: 'GET', url: '/loud' });
      expect(loud.json()).toEqual({ ok: true, level: 'warn' });
      expect(child).toHaveBeenCalledTimes(1);
      expect(lines.map(({ level, msg, reqId, upload }) => ({ level, msg, reqId, upload }))).toEqual([
        { level: 40, msg: 'first', reqId: 'req-2', upload: true },
        { level: 50, msg: 'second', reqId: 'req-2', upload: undefined },
      ]);
    } finally {
      await app.close();
    }
  });

  it('writes what the plain child would at info: the request lines with their id', async () => {
    const { logger, lines } = capturedLogger('info');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: deferredChildLogger });
    app.get('/ping', async () => ({ ok: true }));
    try {
      await app.inject({ method: 'GET', url: '/ping' });
      expect(lines.map(({ msg, reqId }) => ({ msg, reqId }))).toEqual([
        { msg: 'incoming request', reqId: 'req-1' },
        { msg: 'request completed', reqId: 'req-1' },
      ]);
    } finally {
      await app.close();
    }
  });
});
