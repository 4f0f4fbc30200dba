import { randomBytes } from 'node:crypto';
import type {
  TLoginRequest,
  TLoginResponse,
  TLoginThrottleClearRequest,
  TLoginThrottleEntry,
  TPage,
  TPageQuery,
  TRole,
  TSessionResponse,
} from '@manifold/contract';
import type { Transaction } from 'kysely';
import type { DB, UserRow } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { spendDecoyVerification, verifyPassword } from '../../lib/passwords.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository, toUserProfile, usernameKey } from '../users/users.repository.js';
import type { LoginThrottlePolicy } from './login-throttle.js';
import { LoginThrottleRepository, type ThrottleRow } from './login-throttle.repository.js';
import type { SessionTokens } from './session-tokens.js';
import { type LiveSessionRow, SessionsRepository } from './sessions.repository.js';

type ThrottleKeys = ReturnType<LoginThrottlePolicy['keys']>;

function describeThrottleRow(row: ThrottleRow): TLoginThrottleEntry {
  const [kind, rest] = row.key.split(/:(.*)/s) as ['pair' | 'ip' | 'user', string];
  const [username, sourceIp] =
    kind === 'pair' ? (rest.split(/\|(?=[^|]*$)/) as [string, string]) : kind === 'user' ? [rest, null] : [null, rest];
  return {
    key: row.key,
    kind,
    username,
    sourceIp,
    failures: row.failures,
    windowStart: row.windowStart,
    notBefore: row.notBefore,
  };
}

export interface RequestMeta {
  sourceIp: string;
  userAgent: string | undefined;
}

/** Resolves a bearer token that is not a session token to its caller, or undefined. */
export type BearerVerifier = (token: string, sourceIp: string) => Promise<Caller | undefined>;

export class SessionService {
  private readonly verifiers: BearerVerifier[] = [];

  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly tokens: SessionTokens,
    private readonly throttle: LoginThrottlePolicy,
  ) {}

  async login(input: TLoginRequest, meta: RequestMeta): Promise<TLoginResponse> {
    const username = input.username?.trim() ?? '';
    const password = input.password ?? '';
    const problems = new ErrorCollector();
    if (!username) problems.add('usernameEmpty', 'username');
    if (!password) problems.add('userHasNoPassword', 'password');
    problems.throwIfAny();

    const { db, dialect } = this.database;
    const keys = this.throttle.keys(usernameKey(username), meta.sourceIp);
    await this.admit(keys, new Date());

    const user = await new UsersRepository(db, dialect).findByUsername(username);
    const passwordMatches = user?.password_hash
      ? await verifyPassword(user.password_hash, password)
      : (await spendDecoyVerification(password), false);

    if (!user || !passwordMatches) {
      await new AuditRepository(db, dialect).record({
        type: 'loginFailed',
        actor: username.slice(0, 128),
        sourceIp: meta.sourceIp,
      });
      throw new AppError('passwordIncorrect', { field: 'password' });
    }

    return this.startSession(user, meta, 'loginSucceeded', {
      alsoInTransaction: (trx) => this.forgive(trx, keys, new Date()),
    });
  }

  /**
   * Opens a session for a user whose identity has been established (password or single
   * sign-on) and answers what a login answers; audited as `auditType`. A single sign-on login
   * names its identity provider: the session remembers it (so that deleting or turning off the
   * provider ends the session), and `alsoInTransaction` runs first, in the session's transaction.
   */
  async startSession(
    user: UserRow,
    meta: RequestMeta,
    auditType: 'loginSucceeded' | 'ssoLoginSucceeded',
    options: { identityProviderId?: string; alsoInTransaction?: (trx: Transaction<DB>) => Promise<void> } = {},
  ): Promise<TLoginResponse> {
    const sessionId = randomBytes(24).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.config.sessionTtlSeconds * 1000);
    await this.database.transaction(async (trx) => {
      await options.alsoInTransaction?.(trx);
      await new SessionsRepository(trx).create({
        id: sessionId,
        user_id: user.id,
        created_at: now.toISOString(),
        login_at: now.toISOString(),
        identity_provider_id: options.identityProviderId ?? null,
        expires_at: expiresAt.toISOString(),
        revoked_at: null,
        escalated: 0,
        source_ip: meta.sourceIp.slice(0, 64),
        user_agent: meta.userAgent?.slice(0, 256) ?? null,
      });
      await new AuditRepository(trx, this.database.dialect).record({
        type: auditType,
        actor: user.username,
        sourceIp: meta.sourceIp,
      });
    });
    const sessionToken = await this.tokens.sign({ sessionId, userId: user.id }, expiresAt);
    return { sessionToken, userProfile: toUserProfile(user) };
  }

  /**
   * Adds a check for bearer tokens that are not session tokens (OAuth client tokens, JWTs of
   * trusted issuers: docs/identity.md). Session tokens are tried first; then each verifier in
   * the order added, the first caller found wins.
   */
  addBearerVerifier(verifier: BearerVerifier): void {
    this.verifiers.push(verifier);
  }

  /**
   * Counts this attempt before any password is checked, under row locks on its three counters,
   * and refuses it unchecked while any counter holds its source or account back.
   */
  private async admit(keys: ThrottleKeys, now: Date): Promise<void> {
    const nowIso = now.toISOString();
    const { dialect } = this.database;
    await new LoginThrottleRepository(this.database.db, dialect).ensure(Object.values(keys), nowIso);
    const notBefore = await this.database.transaction(async (trx) => {
      const counters = new LoginThrottleRepository(trx, dialect);
      // always pair → ip → user: concurrent attempts lock in one order and never deadlock
      const rows = {
        pair: await counters.lock(keys.pair, nowIso),
        ip: await counters.lock(keys.ip, nowIso),
        user: await counters.lock(keys.user, nowIso),
      };
      const held = Object.values(rows)
        .filter((row) => !this.throttle.expired(row.windowStart, now) && row.notBefore && row.notBefore > nowIso)
        .map((row) => row.notBefore!)
        .sort()
        .at(-1);
      if (held) return new Date(held);
      const kinds = this.throttle.countsForAccount(this.counted(rows.pair, now) + 1)
        ? (['pair', 'ip', 'user'] as const)
        : (['pair', 'ip'] as const);
      for (const kind of kinds) {
        const row = rows[kind];
        const failures = this.counted(row, now) + 1;
        const wait = this.throttle.waitMs(kind, failures);
        await counters.save({
          key: row.key,
          failures,
          windowStart: this.throttle.expired(row.windowStart, now) ? nowIso : row.windowStart,
          notBefore: wait > 0 ? new Date(now.getTime() + wait).toISOString() : null,
        });
      }
      return null;
    });
    if (notBefore) {
      const seconds = Math.max(1, Math.ceil((notBefore.getTime() - now.getTime()) / 1000));
      throw new AppError('loginTemporarilyLocked', {
        description: `Too many failed login attempts; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
      });
    }
  }

  private counted(row: ThrottleRow, now: Date): number {
    return this.throttle.expired(row.windowStart, now) ? 0 : row.failures;
  }

  /** A successful login clears its source's and its account's counters and takes its attempt back from the address. */
  private async forgive(trx: Transaction<DB>, keys: ThrottleKeys, now: Date): Promise<void> {
    const counters = new LoginThrottleRepository(trx, this.database.dialect);
    const nowIso = now.toISOString();
    await counters.save({ key: keys.pair, failures: 0, windowStart: nowIso, notBefore: null });
    const ip = await counters.lock(keys.ip, nowIso);
    const failures = Math.max(0, this.counted(ip, now) - 1);
    await counters.save({ ...ip, failures, notBefore: this.throttle.waitMs('ip', failures) > 0 ? ip.notBefore : null });
    await counters.save({ key: keys.user, failures: 0, windowStart: nowIso, notBefore: null });
  }

  /** Failed-login counters with failures, busiest first (administrators). */
  async throttleList(page: TPageQuery): Promise<TPage<TLoginThrottleEntry>> {
    const { db, dialect } = this.database;
    const rows = await new LoginThrottleRepository(db, dialect).list(page);
    const entries = rows.data.map(describeThrottleRow);
    const keys = entries.flatMap((entry) => (entry.username === null ? [] : [entry.username]));
    const names = await new UsersRepository(db, dialect).usernamesByKeys(keys);
    return {
      ...rows,
      data: entries.map((entry) =>
        entry.username === null ? entry : { ...entry, username: names.get(entry.username) ?? entry.username },
      ),
    };
  }

  /** Clears one counter (an administrator lets a held-back account or address try again at once). */
  async throttleClear(input: TLoginThrottleClearRequest, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      if (!(await new LoginThrottleRepository(trx, this.database.dialect).remove(input.key))) {
        throw new AppError('loginThrottleKeyNotPresent', { field: 'key' });
      }
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'loginThrottleCleared', input.key);
    });
  }

  /**
   * The caller behind a bearer token, or undefined when the token or its session is not live. At
   * once (no promise) for a session token where the database answers at once (SQLite): every
   * authenticated request takes this path.
   */
  authenticate(token: string, sourceIp: string): Caller | undefined | Promise<Caller | undefined> {
    const claims = this.tokens.verify(token);
    if (!claims) return this.authenticateOther(token, sourceIp);
    const now = isoNow();
    const found = new SessionsRepository(this.database.db).findLive(claims.sessionId, claims.userId, now);
    return found instanceof Promise
      ? found.then((live) => sessionCaller(live, claims.sessionId, now, sourceIp))
      : sessionCaller(found, claims.sessionId, now, sourceIp);
  }

  /** The caller behind a bearer token that is not a session token (an API token…), if a verifier knows it. */
  private async authenticateOther(token: string, sourceIp: string): Promise<Caller | undefined> {
    for (const verifier of this.verifiers) {
      const caller = await verifier(token, sourceIp);
      if (caller) return caller;
    }
    return undefined;
  }

  describe(caller: Caller): TSessionResponse {
    return { userProfile: toUserProfile(caller.user), escalated: caller.escalated };
  }

  /**
   * A new token on a new session; the old token stops working. Only the refresh that itself ends
   * the old session opens the new one: of refreshes that race, one wins (the others answer 401),
   * and a session revoked meanwhile (logout, a role or password change, the user deleted) is
   * never carried over into a new one. The new session keeps the old one's login time and
   * identity provider, and lives `SESSION_TTL_SECONDS` but never past the login plus
   * `SESSION_MAX_LIFETIME_SECONDS`: a session whose login is that old is ended, and answered 401.
   */
  async refresh(caller: Caller, meta: RequestMeta): Promise<{ sessionToken: string }> {
    if (caller.via) throw new AppError('actionNotAllowed', { description: 'An API token cannot be turned into a session' });
    const sessionId = randomBytes(24).toString('base64url');
    const now = new Date();
    const expiresAt = await this.database.transaction(async (trx) => {
      // the user's row before the session's: the order a change of the user takes (holdShared)
      await new UsersRepository(trx, this.database.dialect).holdShared(caller.userId);
      const sessions = new SessionsRepository(trx);
      const origin = await sessions.revokeForRefresh(caller.sessionId, now.toISOString());
      if (!origin) throw new AppError('invalidSessionToken');
      const limit = new Date(origin.loginAt).getTime() + this.config.sessionMaxLifetimeSeconds * 1000;
      // past the limit (or no usable login time): the old session stays ended, no new one opens
      if (!(limit > now.getTime())) return undefined;
      const expires = new Date(Math.min(now.getTime() + this.config.sessionTtlSeconds * 1000, limit));
      await sessions.create({
        id: sessionId,
        user_id: caller.userId,
        created_at: now.toISOString(),
        login_at: origin.loginAt,
        identity_provider_id: origin.identityProviderId,
        expires_at: expires.toISOString(),
        revoked_at: null,
        escalated: caller.escalated ? 1 : 0,
        escalated_until: caller.escalated ? caller.escalatedUntil : null,
        source_ip: meta.sourceIp.slice(0, 64),
        user_agent: meta.userAgent?.slice(0, 256) ?? null,
      });
      return expires;
    });
    if (!expiresAt) {
      throw new AppError('invalidSessionToken', { description: 'The session has reached its maximum lifetime; log in again' });
    }
    return { sessionToken: await this.tokens.sign({ sessionId, userId: caller.userId }, expiresAt) };
  }

  async logout(caller: Caller): Promise<void> {
    if (caller.via) throw new AppError('actionNotAllowed', { description: 'An API token has no session to end' });
    await this.database.transaction(async (trx) => {
      await new SessionsRepository(trx).revoke(caller.sessionId, isoNow());
      await new AuditRepository(trx, this.database.dialect).record({
        type: 'logout',
        actor: caller.username,
        sourceIp: caller.sourceIp,
      });
    });
  }
}

/** The caller of a live session's row (undefined: no live session), escalated only within its time. */
function sessionCaller(live: LiveSessionRow | undefined, sessionId: string, now: string, sourceIp: string): Caller | undefined {
  if (!live) return undefined;
  const escalatedUntil = live.s_escalated_until;
  return {
    userId: live.id,
    username: live.username,
    role: live.role as TRole,
    sessionId,
    escalated: Number(live.s_escalated) === 1 && escalatedUntil !== null && escalatedUntil > now,
    escalatedUntil,
    sourceIp,
    user: live,
  };
}
