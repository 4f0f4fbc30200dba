import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCompression } from './compression.js';

const rows = Array.from({ length: 200 }, (_, index) => ({ id: index, name: `order ${index}`, state: 'AUTHORIZED' }));
const big = { data: rows };
const bigText = JSON.stringify(big);
const huge = { data: Array.from({ length: 4000 }, (_, index) => ({ id: index, name: `order ${index}` })) };

describe('registerCompression', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    registerCompression(app);
    app.get('/big', async () => big);
    app.get('/huge', async () => huge);
    app.get('/small', async () => ({ ok: true }));
    app.post('/big', async () => big);
    app.post('/search', { config: { compressAnswer: true } }, async () => big);
    app.get('/xml', async (_request, reply) => reply.type('application/xml').send(`<list>${'<order/>'.repeat(500)}</list>`));
    app.get('/picture', async (_request, reply) => reply.type('image/png').send(Buffer.alloc(4096, 1)));
    app.get('/stream', async (_request, reply) => reply.type('application/json').send(Readable.from([bigText])));
    app.get('/encoded', async (_request, reply) =>
      reply.type('application/json').header('content-encoding', 'gzip').send(zlib.gzipSync(bigText)),
    );
    app.get('/varied', async (_request, reply) => reply.header('vary', 'Origin').send(big));
    await app.ready();
  });
  afterAll(() => app.close());

  const get = (url: string, acceptEncoding?: string) =>
    app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  it('answers a GET of 1 KiB and more in brotli when the client takes it, the body the same once decoded', async () => {
    const response = await get('/big', 'gzip, deflate, br');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    expect(response.rawPayload.length).toBeLessThan(bigText.length / 5);
    expect(zlib.brotliDecompressSync(response.rawPayload).toString()).toBe(bigText);
  });

  it('uses gzip when the client takes only gzip, or refuses brotli, and compresses large answers off the event loop alike', async () => {
    const gzip = await get('/big', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(bigText);
    expect((await get('/big', 'br;q=0, gzip')).headers['content-encoding']).toBe('gzip');
    const large = await get('/huge', 'br');
    expect(large.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(large.rawPayload).toString())).toEqual(huge);
    const xml = await get('/xml', 'gzip');
    expect(xml.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(xml.rawPayload).toString()).toBe(`<list>${'<order/>'.repeat(500)}</list>`);
  });

  it('sends as they are: no Accept-Encoding, identity or only unknown encodings, small answers, POST answers', async () => {
    for (const accepted of [undefined, 'identity', 'deflate', 'zstd', 'br;q=0, gzip;q=0']) {
      const response = await get('/big', accepted);
      expect(response.headers['content-encoding'], String(accepted)).toBeUndefined();
      expect(response.body).toBe(bigText);
    }
    // whether the answer could be compressed depends on the header: caches are told
    expect((await get('/big')).headers.vary).toBe('Accept-Encoding');
    const small = await get('/small', 'br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    const post = await app.inject({ method: 'POST', url: '/big', headers: { 'accept-encoding': 'br, gzip' } });
    expect(post.headers['content-encoding']).toBeUndefined();
    expect(post.headers.vary).toBeUndefined();
    expect(post.body).toBe(bigText);
  });

  it("compresses a POST search's answer when its route says so", async () => {
    const response = await app.inject({ method: 'POST', url: '/search', headers: { 'accept-encoding': 'br' } });
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(zlib.brotliDecompressSync(response.rawPayload).toString()).toBe(bigText);
  });

  it('leaves pictures, streams and answers already encoded alone, and adds to a Vary already set', async () => {
    const picture = await get('/picture', 'br');
    expect(picture.headers['content-encoding']).toBeUndefined();
    expect(picture.rawPayload).toEqual(Buffer.alloc(4096, 1));
    const stream = await get('/stream', 'br');
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.body).toBe(bigText);
    const encoded = await get('/encoded', 'br, gzip');
    expect(encoded.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(encoded.rawPayload).toString()).toBe(bigText);
    expect((await get('/varied', 'gzip')).headers.vary).toBe('Origin, Accept-Encoding');
  });
});
