import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLoginRequest, TLoginResponse, TRole, TSessionResponse } from '@manifold/contract';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { spendDecoyVerification, verifyPassword } from '../../lib/passwords.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository, toUserProfile, usernameKey } from '../users/users.repository.js';
import type { LoginThrottle } from './login-throttle.js';
import type { SessionTokens } from './session-tokens.js';
import { SessionsRepository } from './sessions.repository.js';

export interface RequestMeta {
  sourceIp: string;
  userAgent: string | undefined;
}

export class SessionService {
  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly tokens: SessionTokens,
    private readonly throttle: LoginThrottle,
  ) {}

  async login(input: TLoginRequest, meta: RequestMeta): Promise<TLoginResponse> {
    const username = input.username?.trim() ?? '';
    const password = input.password ?? '';
    const problems = new ErrorCollector();
    if (!username) problems.add('usernameEmpty', 'username');
    if (!password) problems.add('userHasNoPassword', 'password');
    problems.throwIfAny();

    const { db, dialect } = this.database;
    const keys = this.throttle.keysFor(usernameKey(username), meta.sourceIp);
    const now = new Date();
    const state = await this.throttle.state(db, keys, now);
    if (state.lockedUntil) {
      const minutes = Math.max(1, Math.ceil((state.lockedUntil.getTime() - now.getTime()) / 60_000));
      throw new AppError('loginTemporarilyLocked', {
        description: `Too many failed login attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
      });
    }
    await sleep(this.throttle.delayMs(state.failures));

    const user = await new UsersRepository(db, dialect).findByUsername(username);
    const passwordMatches = user?.password_hash
      ? await verifyPassword(user.password_hash, password)
      : (await spendDecoyVerification(password), false);

    if (!user || !passwordMatches) {
      await this.database.transaction(async (trx) => {
        await this.throttle.recordFailure(trx, keys, new Date());
        await new AuditRepository(trx, dialect).record({
          type: 'loginFailed',
          actor: username.slice(0, 128),
          sourceIp: meta.sourceIp,
        });
      });
      throw new AppError('passwordIncorrect', { field: 'password' });
    }

    const sessionId = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlSeconds * 1000);
    await this.database.transaction(async (trx) => {
      await this.throttle.clear(trx, keys[0]!);
      await new SessionsRepository(trx).create({
        id: sessionId,
        user_id: user.id,
        created_at: isoNow(),
        expires_at: expiresAt.toISOString(),
        revoked_at: null,
        escalated: 0,
        source_ip: meta.sourceIp.slice(0, 64),
        user_agent: meta.userAgent?.slice(0, 256) ?? null,
      });
      await new AuditRepository(trx, dialect).record({
        type: 'loginSucceeded',
        actor: user.username,
        sourceIp: meta.sourceIp,
      });
    });
    const sessionToken = await this.tokens.sign({ sessionId, userId: user.id }, expiresAt);
    return { sessionToken, userProfile: toUserProfile(user) };
  }

  /** The caller behind a bearer token, or undefined when the token or its session is not live. */
  async authenticate(token: string, sourceIp: string): Promise<Caller | undefined> {
    const claims = await this.tokens.verify(token);
    if (!claims) return undefined;
    const live = await new SessionsRepository(this.database.db).findLive(claims.sessionId, claims.userId, isoNow());
    if (!live) return undefined;
    return {
      userId: live.user.id,
      username: live.user.username,
      role: live.user.role as TRole,
      sessionId: live.session.id,
      escalated: Number(live.session.escalated) === 1,
      sourceIp,
      user: live.user,
    };
  }

  describe(caller: Caller): TSessionResponse {
    return { userProfile: toUserProfile(caller.user), escalated: caller.escalated };
  }

  /** A new token on a new session; the old token stops working. */
  async refresh(caller: Caller, meta: RequestMeta): Promise<{ sessionToken: string }> {
    const sessionId = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + this.config.sessionTtlSeconds * 1000);
    await this.database.transaction(async (trx) => {
      const sessions = new SessionsRepository(trx);
      await sessions.revoke(caller.sessionId, isoNow());
      await sessions.create({
        id: sessionId,
        user_id: caller.userId,
        created_at: isoNow(),
        expires_at: expiresAt.toISOString(),
        revoked_at: null,
        escalated: caller.escalated ? 1 : 0,
        source_ip: meta.sourceIp.slice(0, 64),
        user_agent: meta.userAgent?.slice(0, 256) ?? null,
      });
    });
    return { sessionToken: await this.tokens.sign({ sessionId, userId: caller.userId }, expiresAt) };
  }

  async logout(caller: Caller): Promise<void> {
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
