import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { freePort, startServer } from './helpers/server-process.js';
import { multipartForm } from './helpers/multipart.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

const metricsToken = 'm'.repeat(40);
/** A console build of one page: its wildcard route hands files it lacks on to the not-found handler. */
const consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-metrics-console-'));
fs.writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
afterAll(() => fs.rmSync(consoleDir, { recursive: true, force: true }));

/** The value of one sample line (`name{labels} value`) of a Prometheus text exposition. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describeEachDatabase(
  'GET /metrics behind METRICS_TOKEN',
  (ctx) => {
    it('answers 401 without the token and with another one', async () => {
      expectToken(await ctx().call('GET', '/metrics'), 401, 'invalidSessionToken');
      expectToken(await ctx().call('GET', '/metrics', { token: 'n'.repeat(40) }), 401, 'invalidSessionToken');
      // a session token is not the metrics token
      expectToken(await ctx().call('GET', '/metrics', { token: await ctx().adminToken() }), 401, 'invalidSessionToken');
    });

    it('counts requests by route pattern and status, queries, the event loop and the queues', async () => {
      const token = await ctx().adminToken();
      for (let i = 0; i < 3; i += 1) expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login')).statusCode).toBe(401);
      const response = await ctx().call('GET', '/metrics', { token: metricsToken });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(response.headers['cache-control']).toBe('no-store');
      const text = response.body;
      const ok = { method: 'GET', route: '/ui/user/login', status_code: '200' };
      expect(sample(text, 'manifold_http_request_duration_seconds_count', ok)).toBeGreaterThanOrEqual(3);
      expect(sample(text, 'manifold_http_request_duration_seconds_count', { ...ok, status_code: '401' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(sample(text, 'manifold_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
      expect(sample(text, 'manifold_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'manifold_outbox_oldest_waiting_seconds')).toBe(0);
      expect(sample(text, 'manifold_jobs_oldest_waiting_seconds')).toBeGreaterThanOrEqual(0);
      expect(text).toContain('# TYPE manifold_jobs gauge');
      if (ctx().kind === 'postgres') expect(sample(text, 'manifold_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      // the URL never becomes a label: unknown paths are one series
      // no route: the not-found handler; a console file that does not exist: the console's
      // wildcard route hands it on to the same handler; a page: the handler answers the console
      expect((await ctx().call('GET', '/ui/no/such/route/123')).statusCode).toBe(404);
      expect((await ctx().call('POST', '/no/such/route')).statusCode).toBe(404);
      const page = await ctx().app.inject({ method: 'GET', url: '/orders', headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(200);
      const head = await ctx().app.inject({
        method: 'HEAD',
        url: '/ui/user/login',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(head.statusCode).toBe(200);
      const again = (await ctx().call('GET', '/metrics', { token: metricsToken })).body;
      expect(again).not.toContain('/ui/no/such/route/123');
      const unmatched = { method: 'GET', route: 'unmatched', status_code: '404' };
      expect(sample(again, 'manifold_http_request_duration_seconds_count', unmatched)).toBe(1);
      expect(sample(again, 'manifold_http_request_duration_seconds_count', { ...unmatched, method: 'POST' })).toBe(1);
      expect(sample(again, 'manifold_http_request_duration_seconds_count', { ...unmatched, status_code: '200' })).toBe(1);
      expect(again).not.toMatch(/route="\/\*"/);
      expect(sample(again, 'manifold_http_request_duration_seconds_count', { ...ok, method: 'HEAD' })).toBe(1);
      expect(sample(again, 'manifold_http_request_duration_seconds_count', ok)).toBe(
        sample(text, 'manifold_http_request_duration_seconds_count', ok),
      );
    });

    it('counts the bytes an upload delivered, sent chunked (no Content-Length) or with its length', async () => {
      const token = await ctx().adminToken();
      const created = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { designName: 'Metered bracket', description: 'x', companyName: 'Acme' },
      });
      expect(created.statusCode, created.body).toBe(200);
      const { dsiId } = created.json<{ dsiId: string }>();
      const form = (name: string) =>
        multipartForm({ dsiId, isPublic: 'true', file: { filename: name, content: randomBytes(300_000) } });
      const route = { route: '/ui/package/files/upload' };
      const counted = async () =>
        sample((await ctx().call('GET', '/metrics', { token: metricsToken })).body, 'manifold_upload_bytes_total', route) ?? 0;
      const before = await counted();

      // a client that streams its body: Transfer-Encoding chunked, no Content-Length
      const { body, headers } = form('chunked.stl');
      const address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const chunks = [body.subarray(0, 1000), body.subarray(1000, 200_000), body.subarray(200_000)];
      const chunked = await fetch(`${address}/ui/package/files/upload`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body: new ReadableStream({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status, await chunked.clone().text()).toBe(200);
      expect(await counted()).toBe(before + body.length);

      const sized = form('sized.stl');
      const answered = await ctx().call('POST', '/ui/package/files/upload', { token, body: sized.body, headers: sized.headers });
      expect(answered.statusCode, answered.body).toBe(200);
      expect(await counted()).toBe(before + body.length + sized.body.length);
    });
  },
  { METRICS_TOKEN: metricsToken, CONSOLE_DIR: consoleDir },
);

describe('metrics configuration', () => {
  it('refuses a short METRICS_TOKEN', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: `${'x'.repeat(31)} ` })).toThrow(/at least 32 printable characters/);
  });

  it('serves /metrics without a token on its own port, and to nobody on the public port without METRICS_TOKEN', async () => {
    const dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'manifold-metrics-'));
    const metricsPort = await freePort();
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', CONSOLE_DIR: path.join(dataDir, 'none') };
    const server = await startServer({ ...env, METRICS_PORT: String(metricsPort) });
    try {
      const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('manifold_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
      // no METRICS_TOKEN: nobody may read them on the public port
      const publicPort = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer ' } });
      expect(publicPort.status).toBe(401);
      expect(await publicPort.json()).toMatchObject({ errorToken: 'invalidSessionToken' });
    } finally {
      await server.stop();
      await fs.promises.rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
