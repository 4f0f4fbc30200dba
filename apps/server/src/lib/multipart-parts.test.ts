import net from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerMultipart } from '../plugins/multipart.js';
import { formParts } from './multipart-parts.js';

const boundary = 'xBOUNDARYx';
const body = Buffer.concat([
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  ),
  Buffer.alloc(512 * 1024, 7),
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server whose upload route starts reading the form only after `delayMs` (like a slow auth check). */
async function serverReadingAfter(delayMs: number) {
  const app = Fastify({ logger: false });
  await registerMultipart(app, 10 * 1024 * 1024);
  const outcome: { settled?: 'read' | 'failed'; error?: string } = {};
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  app.post('/upload', async (request) => {
    await sleep(delayMs);
    try {
      for await (const part of formParts(request)) {
        if (part.type === 'file') await pipeline(part.file, new Writable({ write: (_chunk, _encoding, done) => done() }));
      }
      outcome.settled = 'read';
    } catch (error) {
      outcome.settled = 'failed';
      outcome.error = error instanceof Error ? error.message : String(error);
    } finally {
      settle();
    }
    return {};
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  close = () => app.close();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, outcome, settled };
}

function sendHalfAndLeave(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.subarray(0, body.length / 2), () => {
        socket.destroy();
        resolve();
      });
    });
  });
}

describe('formParts', () => {
  it('fails, rather than waiting forever, when the client left before the form was read', async () => {
    const server = await serverReadingAfter(300);
    await sendHalfAndLeave(server.port);
    const result = await Promise.race([server.settled.then(() => 'settled' as const), sleep(5000).then(() => 'hung' as const)]);
    expect(result).toBe('settled');
    expect(server.outcome.settled).toBe('failed');
    expect(server.outcome.error).toMatch(/premature close/i);
  });

  it('fails the file being read when the client leaves in the middle of it', async () => {
    const server = await serverReadingAfter(0);
    await sendHalfAndLeave(server.port);
    const result = await Promise.race([server.settled.then(() => 'settled' as const), sleep(5000).then(() => 'hung' as const)]);
    expect(result).toBe('settled');
    expect(server.outcome.settled).toBe('failed');
  });
});

describe('formParts on a whole request whose form is cut off', () => {
  it('fails with malformedRequest, rather than waiting forever, when the form ends inside a field after a file', async () => {
    const app = Fastify({ logger: false });
    await registerMultipart(app, 10 * 1024 * 1024);
    let outcome = '';
    app.post('/upload', async (request) => {
      try {
        for await (const part of formParts(request)) {
          if (part.type === 'file') await pipeline(part.file, new Writable({ write: (_chunk, _encoding, done) => done() }));
        }
        outcome = 'read';
      } catch (error) {
        outcome = error instanceof Error ? error.message : String(error);
      }
      return {};
    });
    close = () => app.close();
    const cut = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.alloc(1024, 7),
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhel`),
    ]);
    const answer = app.inject({
      method: 'POST',
      url: '/upload',
      payload: cut,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const result = await Promise.race([answer.then(() => 'answered' as const), sleep(5000).then(() => 'hung' as const)]);
    expect(result).toBe('answered');
    expect(outcome).toMatch(/multipart form cannot be read/);
  });
});
