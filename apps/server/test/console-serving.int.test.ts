import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/test-app.js';

const consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-console-'));
fs.mkdirSync(path.join(consoleDir, 'assets'));
fs.writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
fs.writeFileSync(path.join(consoleDir, 'assets/app-1234.js'), 'console.log(1)');
// the build's compressed copies (apps/console/vite.config.ts `precompress`)
const bundle = `console.log(${'"manifold", '.repeat(200)})`;
fs.writeFileSync(path.join(consoleDir, 'assets/main-5678.js'), bundle);
fs.writeFileSync(path.join(consoleDir, 'assets/main-5678.js.br'), brotliCompressSync(bundle));
fs.writeFileSync(path.join(consoleDir, 'assets/main-5678.js.gz'), gzipSync(bundle));
fs.writeFileSync(path.join(consoleDir, 'index.html.br'), brotliCompressSync('<!doctype html><title>console</title>'));
afterAll(() => fs.rmSync(consoleDir, { recursive: true, force: true }));

describeEachDatabase(
  'serving the console',
  (ctx) => {
    const html = { accept: 'text/html,application/xhtml+xml' };

    it('serves index.html at / and for deep links', async () => {
      for (const url of ['/', '/orders/42', '/login?redirect=%2Fusers']) {
        const response = await ctx().call('GET', url, { headers: html });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.body).toContain('<title>console</title>');
      }
      // `/` is the page whatever the client accepts (fetch and curl send no text/html)
      const variants: Record<string, string>[] = [
        {},
        { 'accept-encoding': 'gzip, deflate, br' },
        { accept: '*/*', 'accept-encoding': 'gzip' },
      ];
      for (const headers of variants) {
        const response = await ctx().call('GET', '/', { headers });
        expect(response.statusCode, JSON.stringify(headers)).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
      }
    });

    it('serves the console pages under a strict Content-Security-Policy that forbids framing', async () => {
      const response = await ctx().call('GET', '/orders/42', { headers: html });
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data: blob:;font-src 'self' data:;" +
          "connect-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'",
      );
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    });

    it('serves hashed assets as immutable', async () => {
      const response = await ctx().call('GET', '/assets/app-1234.js');
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    });

    it('sends the compressed copy the build made to a browser that accepts it, the file itself otherwise', async () => {
      const brotli = await ctx().call('GET', '/assets/main-5678.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(brotli.statusCode).toBe(200);
      expect(brotli.headers['content-encoding']).toBe('br');
      expect(brotli.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(brotli.headers.vary).toBe('Accept-Encoding');
      expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(bundle);

      const gzip = await ctx().call('GET', '/assets/main-5678.js', { headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.rawPayload).toString()).toBe(bundle);

      const plain = await ctx().call('GET', '/assets/main-5678.js', { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(bundle);

      // a file the build left uncompressed is sent as it is
      const small = await ctx().call('GET', '/assets/app-1234.js', { headers: { 'accept-encoding': 'br' } });
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.body).toBe('console.log(1)');

      const page = await ctx().call('GET', '/orders/42', { headers: { ...html, 'accept-encoding': 'br' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-encoding']).toBe('br');
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(brotliDecompressSync(page.rawPayload).toString()).toContain('<title>console</title>');
    });

    it('answers unknown API paths and missing files with the spec 404, not the page', async () => {
      for (const url of ['/ui/orders/42', '/assets/missing.js', '/stp/none']) {
        const response = await ctx().call('GET', url, { headers: html });
        expect(response.statusCode, url).toBe(404);
      }
      const api = await ctx().call('GET', '/ui/orders/42', { headers: html });
      expect(api.json()).toEqual({ errorToken: 'entityDoesNotExist', errorDescription: 'Entity does not exist' });
    });

    it('tells the console its runtime settings', async () => {
      const response = await ctx().call('GET', '/console-config.json');
      expect(response.json()).toEqual({
        siteName: 'Manifold',
        closedFunctions: [],
        publicUrl: 'http://127.0.0.1:8080',
        secureCookies: true,
        cookieDomain: null,
        version: '0.1.0',
      });
    });
  },
  { CONSOLE_DIR: consoleDir },
);
