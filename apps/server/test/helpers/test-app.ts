import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject } from 'vitest';
import type { TUserAddRequest, TUserProfile } from '@manifold/contract';
import { buildApp } from '../../src/app.js';
import type { DB } from '../../src/db/schema.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createMigratedDatabase } from './database-servers.js';

export const adminPassword = 'Admin-password-1';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  kind: string;
  /** POST/GET with JSON, optionally as a session. */
  call(
    method: 'GET' | 'POST',
    url: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  login(username: string, password: string): Promise<string>;
  adminToken(): Promise<string>;
  /** Adds a user through the API (as admin) and answers a token of theirs. */
  createUser(overrides?: Partial<TUserAddRequest>): Promise<{ profile: TUserProfile; password: string; token: string }>;
}

interface ResponseLike {
  statusCode: number;
  body: string;
  json(): unknown;
}

/**
 * Asserts an error answer: its exact status and token and, when given, the field it names.
 * Answers the body (e.g. to look at its description).
 */
export function expectToken(
  response: ResponseLike,
  status: number,
  token: string,
  field?: string,
): { errorToken: string; errorDescription: string; field?: string } {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as { errorToken: string; errorDescription: string; field?: string };
  expect(body.errorToken, response.body).toBe(token);
  if (field !== undefined) expect(body.field, response.body).toBe(field);
  return body;
}

/** How many rows a table holds. */
export async function countRows(ctx: TestApp, table: keyof DB): Promise<number> {
  const { db } = ctx.app.services.database;
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Asserts a 418 and answers its tokens with their fields. */
export function expectTokens(response: ResponseLike): { errorToken: string; field?: string }[] {
  expect(response.statusCode, response.body).toBe(418);
  return (response.json() as { data: { errorToken: string; field?: string }[] }).data;
}

/** The ids of a user's sessions that are not revoked (expired ones included), straight from the table. */
export async function liveSessionIds(app: FastifyInstance, username: string): Promise<string[]> {
  const rows = await app.services.database.db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select('sessions.id')
    .where('users.username', '=', username)
    .where('sessions.revoked_at', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

let userCounter = 0;

export function buildUserInput(
  overrides: Partial<TUserAddRequest> = {},
): TUserAddRequest & { username: string; password: string } {
  userCounter += 1;
  const username = overrides.username ?? `user${userCounter}_${Math.random().toString(36).slice(2, 7)}`;
  return {
    username,
    password: 'Password-123',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `${username}@example.com`,
    role: 'USER',
    timeZone: 'Europe/London',
    language: 'en_US',
    company: 'Analytical Engines',
    ...overrides,
  } as TUserAddRequest & { username: string; password: string };
}

/**
 * The environment of another server process of the suite's instance: the same database and data
 * directory (hence the same key-encryption key and stored files), no console, no logs.
 */
export function serverProcessEnv(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    DATABASE_URL: config.database.kind === 'sqlite' ? `sqlite:${config.database.file}` : config.database.url,
    ADMIN_USERNAME: 'admin',
    ADMIN_PASSWORD: adminPassword,
    LOG_LEVEL: 'silent',
    CONSOLE_DIR: path.join(config.dataDir, 'no-console'),
    ...extra,
  };
}

/**
 * Runs a suite once per database the global setup found (SQLite always; PostgreSQL and MariaDB
 * when they answer — in CI they must). Each run gets a fresh database, a copy of the run's migrated
 * template, and a freshly built app.
 */
export function describeEachDatabase(title: string, suite: (ctx: () => TestApp) => void, env: Record<string, string> = {}): void {
  const kinds = inject('databases');
  describe.each(kinds)(`${title} [%s]`, (kind) => {
    let current: TestApp | undefined;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-test-'));
      // a copy of the run's migrated template: the app finds every migration run
      const { url: databaseUrl, drop } = await createMigratedDatabase(
        kind,
        inject('databaseTemplates'),
        path.join(dataDir, 'test.db'),
      );
      const config = loadConfig({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        ADMIN_USERNAME: 'admin',
        ADMIN_PASSWORD: adminPassword,
        LOG_LEVEL: 'silent',
        LOGIN_SLOWDOWN_MS: '0',
        CONSOLE_DIR: path.join(dataDir, 'no-console'),
        ...env,
      });
      const app = await buildApp(config, { logger: false });
      await app.ready();
      current = makeTestApp(app, config, kind);
      cleanup = async () => {
        await app.close();
        await drop();
        await fs.rm(dataDir, { recursive: true, force: true });
      };
    });

    afterAll(async () => {
      await cleanup?.();
    });

    suite(() => {
      if (!current) throw new Error('the test app is not built yet');
      return current;
    });
  });
}

function makeTestApp(app: FastifyInstance, config: Config, kind: string): TestApp {
  let cachedAdminToken: string | undefined;
  const call: TestApp['call'] = (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const request: InjectOptions = { method, url, headers };
    if (options.body !== undefined) request.payload = options.body as InjectOptions['payload'];
    return app.inject(request);
  };
  const login = async (username: string, password: string) => {
    const response = await call('POST', '/ui/user/login', { body: { username, password } });
    if (response.statusCode !== 200) throw new Error(`login of ${username} failed: ${response.statusCode} ${response.body}`);
    return response.json<{ sessionToken: string }>().sessionToken;
  };
  const testApp: TestApp = {
    app,
    config,
    kind,
    call,
    login,
    async adminToken() {
      const live = cachedAdminToken && (await call('GET', '/ui/user/login', { token: cachedAdminToken })).statusCode === 200;
      if (!live) cachedAdminToken = await login('admin', adminPassword);
      return cachedAdminToken!;
    },
    async createUser(overrides = {}) {
      const input = buildUserInput(overrides);
      const response = await call('POST', '/ui/user/add', { token: await testApp.adminToken(), body: input });
      if (response.statusCode !== 200) throw new Error(`user/add failed: ${response.statusCode} ${response.body}`);
      return {
        profile: response.json<TUserProfile>(),
        password: input.password,
        token: await login(input.username, input.password),
      };
    },
  };
  return testApp;
}
