import fs from 'node:fs';
import path from 'node:path';
import { isSiteName, SITE_NAME_MAX_LENGTH, servedDatabaseTypes } from '@manifold/contract';
import { DEFAULT_PEER_HTTP_LIMITS, parsePeerHostPolicy, type PeerHttpConfig } from './peers/http-client.js';

export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql';

export type DatabaseTarget = { kind: 'sqlite'; file: string | ':memory:' } | { kind: 'postgres' | 'mysql'; url: string };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseTarget;
  publicUrl: string;
  siteName: string;
  adminUsername: string;
  /** Undefined: a random one is generated on first start. */
  adminPassword: string | undefined;
  cookieSecure: boolean;
  cookieDomain: string | null;
  /** `TRUST_PROXY` (a boolean setting, off by default): client addresses come from the last `X-Forwarded-For` entry, the one the reverse proxy in front added. */
  trustProxy: boolean;
  logLevel: string;
  /** Lifetime of a session token, seconds. */
  sessionTtlSeconds: number;
  /**
   * `SESSION_MAX_LIFETIME_SECONDS`: how long after its login a session may be refreshed to live, at
   * most (at least `sessionTtlSeconds`).
   */
  sessionMaxLifetimeSeconds: number;
  loginThrottle: LoginThrottleConfig;
  /** Built console served at `/`; absent when the console was not built. */
  consoleDir: string;
  version: string;
  /**
   * `KEY_ENCRYPTION_KEY` (base64 of 32 bytes): seals the server's private keys in the database.
   * Null: the key kept in `DATA_DIR/key-encryption.key` (created at first start) is used.
   */
  keyEncryptionKey: Buffer | null;
  /** `DEVELOPMENT_CA=true` enables the development CA (demos and tests only). */
  developmentCa: boolean;
  /** Largest file one multipart upload may carry, bytes. */
  uploadMaxBytes: number;
  timeouts: TimeoutConfig;
  metrics: MetricsConfig;
  /** SQLite `synchronous`: FULL (default) survives power loss; NORMAL is faster and survives only a process crash. */
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** `DATABASE_POOL_SIZE`: most connections to PostgreSQL or MariaDB/MySQL this process opens. */
  databasePoolSize: number;
  jobs: JobsConfig;
  /** Outbound calls to peers (docs/configuration.md#peers). */
  peers: PeerHttpConfig;
  /** Delivery of the outbox (docs/peer-network.md#the-outbox). */
  outbox: OutboxConfig;
  /** Hosts a storage provider's custom endpoint may name (`STORAGE_ENDPOINT_ALLOWED_HOSTS`, docs/storage.md). */
  storageEndpointHosts: PeerHttpConfig['allowedHosts'];
  /**
   * `LICENCE_PUBLISHER_CERT`: path of the PEM certificate (or public key) operating licences
   * must be signed with (docs/administration.md#operating-licence). Null: none configured.
   */
  licencePublisherPem: string | null;
  /** Security keys and the escalated session (docs/security-keys-and-access.md). */
  webauthn: WebAuthnConfig;
}

/** How the outbox retries a message its peer did not take. */
export interface OutboxConfig {
  /** Delay after the first failed attempt, ms; doubled after each further failure (half of it random). */
  retryBaseMs: number;
  /** Longest delay between two attempts, ms. */
  retryMaxMs: number;
  /** Attempts before a message is given up as `failed`. */
  maxAttempts: number;
  /** Messages on their way at once (the delivery worker's slots). */
  concurrency: number;
  /** Messages on their way at once to one peer. */
  peerConcurrency: number;
  /**
   * Days delivered messages (not authorizations) and, on the receiving side, the applied message
   * ids of peers are kept (docs/peer-network.md#retention).
   */
  retentionDays: number;
}

export interface WebAuthnConfig {
  /** `WEBAUTHN_RP_ID`: the relying-party id keys are bound to (a registrable domain of the console's host). */
  rpId: string;
  /** `WEBAUTHN_RP_NAME`: the name authenticators show; null: the site name of the server settings. */
  rpName: string | null;
  /** `WEBAUTHN_ORIGINS`: the origins (scheme://host[:port]) an assertion may come from. */
  origins: string[];
  /** `WEBAUTHN_CHALLENGE_SECONDS`: how long a registration or assertion challenge stays usable. */
  challengeSeconds: number;
  /** `ESCALATION_SECONDS`: how long a session stays escalated after a security-key assertion. */
  escalationSeconds: number;
  /** `ESCALATION_REQUIRED_FOR_ADMINS`: sensitive actions need escalation from every ADMIN, key or not. */
  requiredForAdmins: boolean;
}

function webauthnOrigins(raw: string | undefined, publicUrl: string): string[] {
  const values = raw
    ? raw
        .split(',')
        .map((value) => value.trim())
        .filter(Boolean)
    : [publicUrl];
  return values.map((value) => {
    try {
      const url = new URL(value);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
      return url.origin;
    } catch {
      throw new ConfigError(`WEBAUTHN_ORIGINS must be comma-delimited http(s) origins, got "${value}"`);
    }
  });
}

/** The background job runner (docs/background-jobs.md). */
export interface JobsConfig {
  /** `JOBS_ENABLED`: whether `main.ts` starts the runner (tests build the app without it). */
  enabled: boolean;
  /** Jobs one process runs at the same time. */
  concurrency: number;
  /** How often an idle runner looks for due jobs, ms. */
  pollIntervalMs: number;
  /** How long a claimed job stays leased without a renewal, seconds. */
  leaseSeconds: number;
  /** How long a stop waits for running jobs before it releases their leases, ms. */
  stopTimeoutMs: number;
  /** Stored objects younger than this are never swept (a put writes its object just before its row commits), seconds. */
  storageGraceSeconds: number;
  /**
   * Temporary upload files unchanged for this long are swept, seconds: a live upload writes all
   * the time (a stalled one is cut off after `BODY_TIMEOUT_SECONDS`). `STORAGE_TEMP_GRACE_SECONDS`,
   * raised to `REQUEST_TIMEOUT_SECONDS` when the rate check is off ({@link temporaryUploadGraceSeconds}).
   */
  storageTempGraceSeconds: number;
}

/** How long a client may take; a slow or stalled client is cut off (milliseconds, bytes/s). */
export interface TimeoutConfig {
  /** The request line and headers must arrive within this. */
  headersMs: number;
  /** A body that is not a multipart upload must arrive whole within this. */
  bodyMs: number;
  /** After its first `bodyMs`, an upload must keep up at least this rate over the last `bodyMs`. */
  uploadMinBytesPerSecond: number;
  /** Absolute cap on one request, uploads included. */
  requestMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveMs: number;
}

export interface LoginThrottleConfig {
  /** Failures of one account from all addresses before waits begin (five times as many for one address on any account). */
  maxFailures: number;
  /** Failures of one address on one account before waits begin; also the most one address adds to an account's count. */
  slowAfter: number;
  /** The first wait, ms; each further failure doubles it. */
  slowdownMs: number;
  /** The longest wait, seconds. */
  lockSeconds: number;
  /** Failures older than this are forgotten, seconds. */
  windowSeconds: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const unservedDatabaseSchemes: Record<string, string> = {
  sqlserver: 'sqlserver',
  mssql: 'sqlserver',
  oracle: 'oracle',
  sap: 'sap',
  hana: 'sap',
  h2: 'h2',
};

/** Parses `DATABASE_URL`; a type the server cannot serve is a one-line reason. */
export function parseDatabaseUrl(url: string | undefined, dataDir: string): DatabaseTarget {
  if (!url) return { kind: 'sqlite', file: path.join(dataDir, 'manifold.db') };
  if (url === 'sqlite::memory:' || url === 'sqlite://:memory:') return { kind: 'sqlite', file: ':memory:' };
  const scheme = url.split(':', 1)[0]?.toLowerCase() ?? '';
  if (scheme === 'sqlite') {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/manifold.db');
    return { kind: 'sqlite', file: path.resolve(file) };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url };
  if (scheme === 'mysql' || scheme === 'mariadb') return { kind: 'mysql', url: url.replace(/^mariadb:/, 'mysql:') };
  const unserved = unservedDatabaseSchemes[scheme];
  if (unserved) {
    throw new ConfigError(
      `DATABASE_URL: ${unserved} databases cannot be served; use ${servedDatabaseTypes.join(', ')} (sqlite:<path>, postgres://…, mysql://…)`,
    );
  }
  throw new ConfigError(`DATABASE_URL: unknown database type "${scheme}"; use sqlite:<path>, postgres://… or mysql://…`);
}

/** Connections a process opens to PostgreSQL or MariaDB/MySQL at most when `DATABASE_POOL_SIZE` is not set. */
export const DEFAULT_POOL_SIZE = 10;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Default of `SESSION_MAX_LIFETIME_SECONDS`: a week, or the session TTL when that is set longer. */
const DEFAULT_SESSION_MAX_LIFETIME_SECONDS = 7 * 86400;

/**
 * `SESSION_MAX_LIFETIME_SECONDS`: refreshes never carry a session past its login plus this. Not
 * shorter than the TTL (a fresh login would outlive it): startup refuses such a pair.
 */
function sessionMaxLifetime(env: Env, ttlSeconds: number): number {
  const value = integer(
    env,
    'SESSION_MAX_LIFETIME_SECONDS',
    Math.max(DEFAULT_SESSION_MAX_LIFETIME_SECONDS, ttlSeconds),
    60,
    365 * 86400,
  );
  if (value < ttlSeconds) {
    throw new ConfigError(
      `SESSION_MAX_LIFETIME_SECONDS (${value}) must be at least SESSION_TTL_SECONDS (${ttlSeconds}): a session may not outlive the limit of its own login`,
    );
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** The 32-byte key-encryption key from base64 (standard or url-safe); never echoes the value. */
export function parseKeyEncryptionKey(raw: string | undefined, name = 'KEY_ENCRYPTION_KEY'): Buffer | null {
  const text = raw?.trim();
  if (!text) return null;
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
    ? Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64')
    : null;
  if (!key || key.length !== 32) {
    throw new ConfigError(`${name} must be 32 random bytes in base64 (e.g. openssl rand -base64 32)`);
  }
  return key;
}

function peerHostPolicy(raw: string | undefined, name = 'PEER_ALLOWED_HOSTS'): PeerHttpConfig['allowedHosts'] {
  try {
    return parsePeerHostPolicy(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

function licencePublisher(file: string | undefined): string | null {
  if (!file) return null;
  try {
    return fs.readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    throw new ConfigError(`LICENCE_PUBLISHER_CERT: cannot read ${file}: ${(error as Error).message}`);
  }
}

/** `SITE_NAME`, trimmed: the rule the console's server settings apply to the name (one line, 1–64 characters). */
function siteName(raw: string | undefined): string {
  if (!raw) return 'Manifold';
  if (!isSiteName(raw)) {
    throw new ConfigError(
      `SITE_NAME must be one line of 1 to ${SITE_NAME_MAX_LENGTH} characters without control characters, got ${JSON.stringify(raw)}`,
    );
  }
  return raw.trim();
}

/**
 * `PUBLIC_URL` without its trailing slashes: an absolute http(s) address without credentials,
 * query or fragment (links are built by appending paths to it; `POST admin/server` holds the
 * `serverUrl` it seeds to the same rule).
 */
function publicAddress(raw: string): string {
  const text = raw.replace(/\/+$/, '');
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    text.includes('?') ||
    text.includes('#')
  ) {
    throw new ConfigError(
      `PUBLIC_URL must be an absolute http or https address without credentials, query or fragment, got "${raw}"`,
    );
  }
  return text;
}

/** The levels of the server's logger (pino), most severe first; `silent` logs nothing. */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function logLevel(raw: string | undefined): string {
  const value = (raw || 'info').toLowerCase();
  if ((logLevels as readonly string[]).includes(value)) return value;
  throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${raw}"`);
}

function sqliteSynchronous(raw: string | undefined): 'FULL' | 'NORMAL' {
  const value = (raw || 'FULL').toUpperCase();
  if (value === 'FULL' || value === 'NORMAL') return value;
  throw new ConfigError(`SQLITE_SYNCHRONOUS must be FULL or NORMAL, got "${raw}"`);
}

/**
 * The repository's root: the nearest directory above this module holding `apps/console` — whether
 * the module runs as its source (apps/server/src) or from a bundle (apps/server/dist, or a tool's
 * under apps/server/dist/cli).
 */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'apps', 'console'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '../../..');
  }
}

const repoRoot = findRepoRoot(import.meta.dirname);

/** Where `GET /metrics` answers (docs/operations.md); both off by default. */
export interface MetricsConfig {
  /** `METRICS_TOKEN`: `/metrics` on the public port for callers bearing it (at least 32 characters). */
  token: string | null;
  /** `METRICS_PORT`: its own listener without a token, on `METRICS_HOST` (default 127.0.0.1). */
  port: number | null;
  host: string;
}

function metricsConfig(env: Env): MetricsConfig {
  const token = env.METRICS_TOKEN || null;
  if (token !== null && !/^[\x21-\x7e]{32,}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN must be at least 32 printable characters without spaces (e.g. openssl rand -hex 32)');
  }
  return {
    token,
    port: env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 1, 65535) : null,
    host: env.METRICS_HOST || '127.0.0.1',
  };
}

/**
 * How long the storage sweep leaves a temporary upload file unchanged before it takes the upload
 * for abandoned: `STORAGE_TEMP_GRACE_SECONDS`, and with the upload rate check off
 * (`UPLOAD_MIN_BYTES_PER_SECOND=0`) at least `REQUEST_TIMEOUT_SECONDS`: an upload that stalls is
 * then cut off by nothing sooner, and its file (in this process or another) stays unchanged.
 */
function temporaryUploadGraceSeconds(configured: number, timeouts: TimeoutConfig): number {
  if (timeouts.uploadMinBytesPerSecond > 0) return configured;
  return Math.max(configured, Math.ceil(timeouts.requestMs / 1000));
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const publicUrl = publicAddress(env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  const sessionTtlSeconds = integer(env, 'SESSION_TTL_SECONDS', 8 * 3600, 60, 30 * 24 * 3600);
  const timeouts: TimeoutConfig = {
    headersMs: integer(env, 'HEADERS_TIMEOUT_SECONDS', 10, 1, 600) * 1000,
    bodyMs: integer(env, 'BODY_TIMEOUT_SECONDS', 15, 1, 3600) * 1000,
    uploadMinBytesPerSecond: integer(env, 'UPLOAD_MIN_BYTES_PER_SECOND', 16 * 1024, 0, 1024 ** 3),
    requestMs: integer(env, 'REQUEST_TIMEOUT_SECONDS', 3600, 1, 86400) * 1000,
    keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_SECONDS', 5, 1, 600) * 1000,
  };
  return {
    port,
    host,
    dataDir,
    database: parseDatabaseUrl(env.DATABASE_URL, dataDir),
    publicUrl,
    siteName: siteName(env.SITE_NAME),
    adminUsername: env.ADMIN_USERNAME || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    cookieSecure: boolean(env, 'COOKIE_SECURE', true),
    cookieDomain: env.COOKIE_DOMAIN || null,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    logLevel: logLevel(env.LOG_LEVEL),
    sessionTtlSeconds,
    sessionMaxLifetimeSeconds: sessionMaxLifetime(env, sessionTtlSeconds),
    loginThrottle: {
      maxFailures: integer(env, 'LOGIN_MAX_FAILURES', 10, 1, 1000),
      slowAfter: integer(env, 'LOGIN_SLOW_AFTER', 3, 0, 1000),
      slowdownMs: integer(env, 'LOGIN_SLOWDOWN_MS', 1000, 0, 5000),
      lockSeconds: integer(env, 'LOGIN_LOCK_SECONDS', 900, 1, 86400),
      windowSeconds: integer(env, 'LOGIN_WINDOW_SECONDS', 900, 1, 86400),
    },
    consoleDir: path.resolve(env.CONSOLE_DIR || path.join(repoRoot, 'apps/console/dist')),
    version: env.MANIFOLD_VERSION || '0.1.0',
    keyEncryptionKey: parseKeyEncryptionKey(env.KEY_ENCRYPTION_KEY),
    developmentCa: boolean(env, 'DEVELOPMENT_CA', false),
    uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 2 * 1024 ** 3, 1024, 1024 ** 4),
    timeouts,
    sqliteSynchronous: sqliteSynchronous(env.SQLITE_SYNCHRONOUS),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    metrics: metricsConfig(env),
    jobs: {
      enabled: boolean(env, 'JOBS_ENABLED', true),
      concurrency: integer(env, 'JOBS_CONCURRENCY', 4, 1, 64),
      pollIntervalMs: integer(env, 'JOBS_POLL_MS', 2000, 10, 3_600_000),
      leaseSeconds: integer(env, 'JOBS_LEASE_SECONDS', 60, 1, 86400),
      stopTimeoutMs: integer(env, 'JOBS_STOP_TIMEOUT_MS', 10_000, 0, 600_000),
      storageGraceSeconds: integer(env, 'STORAGE_SWEEP_GRACE_SECONDS', 3600, 1, 30 * 86400),
      storageTempGraceSeconds: temporaryUploadGraceSeconds(
        integer(env, 'STORAGE_TEMP_GRACE_SECONDS', 120, 1, 30 * 86400),
        timeouts,
      ),
    },
    storageEndpointHosts: peerHostPolicy(env.STORAGE_ENDPOINT_ALLOWED_HOSTS, 'STORAGE_ENDPOINT_ALLOWED_HOSTS'),
    peers: {
      allowedHosts: peerHostPolicy(env.PEER_ALLOWED_HOSTS),
      connectTimeoutMs: integer(env, 'PEER_CONNECT_TIMEOUT_MS', DEFAULT_PEER_HTTP_LIMITS.connectTimeoutMs, 100, 600_000),
      readTimeoutMs: integer(env, 'PEER_READ_TIMEOUT_MS', DEFAULT_PEER_HTTP_LIMITS.readTimeoutMs, 100, 3_600_000),
      maxResponseBytes: integer(env, 'PEER_MAX_RESPONSE_BYTES', DEFAULT_PEER_HTTP_LIMITS.maxResponseBytes, 1024, 1024 ** 3),
    },
    outbox: {
      retryBaseMs: integer(env, 'OUTBOX_RETRY_BASE_MS', 5000, 10, 3_600_000),
      retryMaxMs: integer(env, 'OUTBOX_RETRY_MAX_MS', 3_600_000, 10, 86_400_000),
      maxAttempts: integer(env, 'OUTBOX_MAX_ATTEMPTS', 20, 1, 1000),
      concurrency: integer(env, 'OUTBOX_CONCURRENCY', 16, 1, 256),
      peerConcurrency: integer(env, 'OUTBOX_PEER_CONCURRENCY', 8, 1, 256),
      retentionDays: integer(env, 'OUTBOX_RETENTION_DAYS', 30, 1, 3650),
    },
    licencePublisherPem: licencePublisher(env.LICENCE_PUBLISHER_CERT),
    webauthn: {
      rpId: env.WEBAUTHN_RP_ID || new URL(publicUrl).hostname.replace(/^\[|\]$/g, ''),
      rpName: env.WEBAUTHN_RP_NAME || null,
      origins: webauthnOrigins(env.WEBAUTHN_ORIGINS, publicUrl),
      challengeSeconds: integer(env, 'WEBAUTHN_CHALLENGE_SECONDS', 300, 10, 3600),
      escalationSeconds: integer(env, 'ESCALATION_SECONDS', 600, 10, 24 * 3600),
      requiredForAdmins: boolean(env, 'ESCALATION_REQUIRED_FOR_ADMINS', false),
    },
  };
}
