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
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:8080', siteName: 'Manifold', adminUsername: 'admin' });
    expect(config.adminPassword).toBeUndefined();
    expect(config.cookieSecure).toBe(true);
  });

  it('refuses a bad port and a bad boolean', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT must be an integer/);
    expect(() => loadConfig({ COOKIE_SECURE: 'maybe' })).toThrow(/COOKIE_SECURE must be true or false/);
  });
});
