import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDatabaseUrl } from './config.js';

describe('parseDatabaseUrl', () => {
  it('defaults to a SQLite file in the data directory', () => {
    expect(parseDatabaseUrl(undefined, '/data')).toEqual({ kind: 'sqlite', file: path.join('/data', 'manifold.db') });
  });

  it('reads sqlite, memory, postgres and mysql addresses', () => {
    expect(parseDatabaseUrl('sqlite::memory:', '/d')).toEqual({ kind: 'sqlite', file: ':memory:' });
    expect(parseDatabaseUrl('sqlite:/tmp/x.db', '/d')).toEqual({ kind: 'sqlite', file: '/tmp/x.db' });
    expect(parseDatabaseUrl('postgresql://u@h/db', '/d')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(parseDatabaseUrl('mariadb://u@h/db', '/d')).toEqual({ kind: 'mysql', url: 'mysql://u@h/db' });
  });

  it('refuses the types the spec lists that cannot be served', () => {
    for (const url of ['sqlserver://h/db', 'oracle://h/db', 'sap://h', 'h2:mem:x']) {
      expect(() => parseDatabaseUrl(url, '/d')).toThrow(ConfigError);
    }
    expect(() => parseDatabaseUrl('sqlserver://h/db', '/d')).toThrow(/sqlserver databases cannot be served/);
  });
});

describe('loadConfig', () => {
  it('applies the runtime contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://127.0.0.1:8080',
      siteName: 'Manifold',
      adminUsername: 'admin',
    });
    expect(config.adminPassword).toBeUndefined();
    expect(config.cookieSecure).toBe(true);
  });

  it('reads the absolute session lifetime (default 7 days, at least the session TTL) and refuses one shorter than the TTL', () => {
    expect(loadConfig({}).sessionMaxLifetimeSeconds).toBe(7 * 86400);
    expect(loadConfig({ SESSION_TTL_SECONDS: '60', SESSION_MAX_LIFETIME_SECONDS: '60' }).sessionMaxLifetimeSeconds).toBe(60);
    // a TTL set longer than the default maximum, with no maximum set, is its own maximum
    expect(loadConfig({ SESSION_TTL_SECONDS: String(10 * 86400) }).sessionMaxLifetimeSeconds).toBe(10 * 86400);
    expect(() => loadConfig({ SESSION_TTL_SECONDS: '3600', SESSION_MAX_LIFETIME_SECONDS: '3599' })).toThrow(
      'SESSION_MAX_LIFETIME_SECONDS (3599) must be at least SESSION_TTL_SECONDS (3600)',
    );
    expect(() => loadConfig({ SESSION_MAX_LIFETIME_SECONDS: '1000' })).toThrow(
      'SESSION_MAX_LIFETIME_SECONDS (1000) must be at least SESSION_TTL_SECONDS (28800)',
    );
    expect(() => loadConfig({ SESSION_MAX_LIFETIME_SECONDS: 'week' })).toThrow(ConfigError);
  });

  it('reads the database pool size (default 10) and refuses one out of 1–1000', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    for (const raw of ['0', '1001', '2.5', 'ten'])
      expect(() => loadConfig({ DATABASE_POOL_SIZE: raw })).toThrow(
        `DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "${raw}"`,
      );
  });

  it('takes SITE_NAME trimmed, and refuses one that is not one line of 1 to 64 characters', () => {
    expect(loadConfig({ SITE_NAME: '  Acme Works 東京 ' }).siteName).toBe('Acme Works 東京');
    expect(loadConfig({ SITE_NAME: 'x'.repeat(64) }).siteName).toBe('x'.repeat(64));
    for (const bad of ['Acme\nWorks', 'Acme\t', '   ', 'x'.repeat(65), 'Acme\u0085']) {
      expect(() => loadConfig({ SITE_NAME: bad }), JSON.stringify(bad)).toThrow(
        `SITE_NAME must be one line of 1 to 64 characters without control characters, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('refuses a bad port and a bad boolean', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT must be an integer/);
    expect(() => loadConfig({ COOKIE_SECURE: 'maybe' })).toThrow(/COOKIE_SECURE must be true or false/);
  });

  it('takes PUBLIC_URL as an absolute http(s) address without credentials, query or fragment, naming PUBLIC_URL otherwise', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://manifold.example.com/' }).publicUrl).toBe('https://manifold.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:8080' }).publicUrl).toBe('http://[::1]:8080');
    for (const bad of [
      'ftp://manifold.example.com',
      'https://user:secret@manifold.example.com',
      'https://manifold.example.com/?x=1',
      'https://manifold.example.com/#top',
      'not a url',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(
        `PUBLIC_URL must be an absolute http or https address without credentials, query or fragment, got "${bad}"`,
      );
    }
  });

  it('reads LOG_LEVEL (default info) and refuses a level pino does not have, naming the setting', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    );
  });

  it('reads TRUST_PROXY as every other boolean setting: off by default, a bad value refused rather than taken as off', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const on of ['true', 'TRUE', '1', 'yes', 'on']) expect(loadConfig({ TRUST_PROXY: on }).trustProxy, on).toBe(true);
    for (const off of ['false', '0', 'no', 'off', '']) expect(loadConfig({ TRUST_PROXY: off }).trustProxy, off).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy' })).toThrow('TRUST_PROXY must be true or false, got "proxy"');
  });
});

describe('keys and uploads configuration', () => {
  it('reads a base64 key-encryption key of 32 bytes and refuses anything else without echoing it', () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ KEY_ENCRYPTION_KEY: key.toString('base64') }).keyEncryptionKey).toEqual(key);
    expect(loadConfig({ KEY_ENCRYPTION_KEY: key.toString('base64url') }).keyEncryptionKey).toEqual(key);
    expect(loadConfig({}).keyEncryptionKey).toBeNull();
    for (const bad of [Buffer.alloc(16).toString('base64'), 'not base64 at all!', 'c2VjcmV0']) {
      expect(() => loadConfig({ KEY_ENCRYPTION_KEY: bad })).toThrow(ConfigError);
      try {
        loadConfig({ KEY_ENCRYPTION_KEY: bad });
      } catch (error) {
        expect((error as Error).message).not.toContain(bad);
      }
    }
  });

  it('keeps the development CA off and allows 2 GiB uploads by default', () => {
    const config = loadConfig({});
    expect(config.developmentCa).toBe(false);
    expect(config.uploadMaxBytes).toBe(2 * 1024 ** 3);
    expect(loadConfig({ DEVELOPMENT_CA: 'true', UPLOAD_MAX_BYTES: '4096' })).toMatchObject({
      developmentCa: true,
      uploadMaxBytes: 4096,
    });
  });

  it('runs background jobs by default and reads their settings', () => {
    expect(loadConfig({}).jobs).toEqual({
      enabled: true,
      concurrency: 4,
      pollIntervalMs: 2000,
      leaseSeconds: 60,
      stopTimeoutMs: 10_000,
      storageGraceSeconds: 3600,
      storageTempGraceSeconds: 120,
    });
    expect(
      loadConfig({
        JOBS_ENABLED: 'false',
        JOBS_CONCURRENCY: '2',
        JOBS_POLL_MS: '500',
        JOBS_LEASE_SECONDS: '120',
        JOBS_STOP_TIMEOUT_MS: '0',
        STORAGE_SWEEP_GRACE_SECONDS: '86400',
        STORAGE_TEMP_GRACE_SECONDS: '30',
      }).jobs,
    ).toEqual({
      enabled: false,
      concurrency: 2,
      pollIntervalMs: 500,
      leaseSeconds: 120,
      stopTimeoutMs: 0,
      storageGraceSeconds: 86400,
      storageTempGraceSeconds: 30,
    });
    expect(() => loadConfig({ STORAGE_SWEEP_GRACE_SECONDS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ STORAGE_TEMP_GRACE_SECONDS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ JOBS_CONCURRENCY: '0' })).toThrow(ConfigError);
  });

  it('keeps an upload\u2019s temporary file from the sweep as long as the upload may live when the rate check is off', () => {
    // UPLOAD_MIN_BYTES_PER_SECOND=0: an upload may stall until REQUEST_TIMEOUT_SECONDS cuts it off
    const graceOf = (env: Record<string, string>) => loadConfig(env).jobs.storageTempGraceSeconds;
    expect(graceOf({ UPLOAD_MIN_BYTES_PER_SECOND: '0' })).toBe(3600);
    expect(graceOf({ UPLOAD_MIN_BYTES_PER_SECOND: '0', REQUEST_TIMEOUT_SECONDS: '600' })).toBe(600);
    expect(graceOf({ UPLOAD_MIN_BYTES_PER_SECOND: '0', REQUEST_TIMEOUT_SECONDS: '60' })).toBe(120);
    expect(graceOf({ UPLOAD_MIN_BYTES_PER_SECOND: '0', STORAGE_TEMP_GRACE_SECONDS: '7200' })).toBe(7200);
    // with the check on, an upload writes at least every BODY_TIMEOUT_SECONDS: the setting as given
    expect(graceOf({ UPLOAD_MIN_BYTES_PER_SECOND: '1', STORAGE_TEMP_GRACE_SECONDS: '30' })).toBe(30);
  });

  it('allows no peer calls by default and reads the peer allow-list and limits', () => {
    const defaults = loadConfig({}).peers;
    expect(defaults.allowedHosts.entries).toEqual([]);
    expect(defaults).toMatchObject({ connectTimeoutMs: 5000, readTimeoutMs: 15_000, maxResponseBytes: 1024 * 1024 });
    const peers = loadConfig({
      PEER_ALLOWED_HOSTS: '*.example.com, 127.0.0.0/8',
      PEER_CONNECT_TIMEOUT_MS: '1000',
      PEER_READ_TIMEOUT_MS: '2000',
      PEER_MAX_RESPONSE_BYTES: '4096',
    }).peers;
    expect(peers).toMatchObject({ connectTimeoutMs: 1000, readTimeoutMs: 2000, maxResponseBytes: 4096 });
    expect(peers.allowedHosts.suffixes).toEqual(['example.com']);
    expect(() => loadConfig({ PEER_ALLOWED_HOSTS: '10.0.0.0/99' })).toThrow(/PEER_ALLOWED_HOSTS: not an address range/);
    expect(() => loadConfig({ PEER_READ_TIMEOUT_MS: '5' })).toThrow(ConfigError);
  });
});
