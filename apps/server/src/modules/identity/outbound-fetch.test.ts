import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error.js';
import { DEFAULT_PEER_HTTP_LIMITS, parsePeerHostPolicy } from '../../peers/http-client.js';
import { outboundFetch } from './outbound-fetch.js';

describe('outboundFetch', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.setHeader('x-seen-content-type', request.headers['content-type'] ?? '');
        response.statusCode = request.url === '/missing' ? 404 : 200;
        response.end(JSON.stringify({ method: request.method, body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const allowed = outboundFetch({ ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('127.0.0.1') });

  it('answers a Response with the status, headers and body', async () => {
    const response = await allowed(`${base}/jwks`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ method: 'GET', body: '' });
    expect((await allowed(`${base}/missing`)).status).toBe(404);
  });

  it('sends form bodies as the caller typed them', async () => {
    const response = await allowed(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'c' }),
    });
    expect(await response.json()).toEqual({ method: 'POST', body: 'grant_type=authorization_code&code=c' });
    expect(response.headers.get('x-seen-content-type')).toBe('application/x-www-form-urlencoded');
  });

  it('refuses an address the allow-list does not cover', async () => {
    const refusing = outboundFetch({ ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('') });
    await expect(refusing(`${base}/jwks`)).rejects.toBeInstanceOf(AppError);
    await expect(refusing(`${base}/jwks`)).rejects.toMatchObject({ token: 'httpClientBadUrl' });
  });
});
