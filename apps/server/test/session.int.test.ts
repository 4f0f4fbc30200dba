import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { SettingsRepository } from '../src/modules/settings/settings.repository.js';
import { adminPassword, describeEachDatabase } from './helpers/test-app.js';

describeEachDatabase('session', (ctx) => {
  /** Audit records of one kind by one actor: tests use users of their own, so a count is their own doing. */
  const auditCount = async (eventType: string, actor: string) =>
    (
      await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select('event_type')
        .where('event_type', '=', eventType)
        .where('actor', '=', actor)
        .execute()
    ).length;

  describe('POST /ui/user/login', () => {
    it('answers a token and the profile, never the password', async () => {
      const response = await ctx().call('POST', '/ui/user/login', { body: { username: 'admin', password: adminPassword } });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.sessionToken.split('.')).toHaveLength(3);
      expect(body.userProfile).toMatchObject({ username: 'admin', role: 'ADMIN' });
      expect(JSON.stringify(body)).not.toMatch(/password|argon2/i);
    });

    it('accepts the username in any case', async () => {
      const response = await ctx().call('POST', '/ui/user/login', { body: { username: 'ADMIN', password: adminPassword } });
      expect(response.statusCode).toBe(200);
    });

    it('refuses a wrong password with passwordIncorrect and records the failure', async () => {
      const { profile } = await ctx().createUser();
      expect(await auditCount('loginFailed', profile.username)).toBe(0);
      const response = await ctx().call('POST', '/ui/user/login', { body: { username: profile.username, password: 'wrong' } });
      expect(response.statusCode).toBe(420);
      expect(response.json()).toMatchObject({ errorToken: 'passwordIncorrect' });
      expect(await auditCount('loginFailed', profile.username)).toBe(1);
    });

    it('answers an unknown user exactly like a wrong password', async () => {
      const unknown = await ctx().call('POST', '/ui/user/login', { body: { username: 'nobody-here', password: 'x' } });
      const wrong = await ctx().call('POST', '/ui/user/login', { body: { username: 'admin', password: 'x' } });
      expect(unknown.statusCode).toBe(420);
      expect(unknown.body).toBe(wrong.body);
    });

    it('reports missing username and password together (418)', async () => {
      const response = await ctx().call('POST', '/ui/user/login', { body: {} });
      expect(response.statusCode).toBe(418);
      expect(response.json().data.map((e: { errorToken: string }) => e.errorToken)).toEqual([
        'usernameEmpty',
        'userHasNoPassword',
      ]);
    });

    it('answers 400 for a wrong type and for malformed JSON', async () => {
      const wrongType = await ctx().call('POST', '/ui/user/login', { body: { username: 42, password: 'x' } });
      expect(wrongType.statusCode).toBe(400);
      expect(wrongType.json().errorToken).toBe('malformedRequest');
      const malformed = await ctx().call('POST', '/ui/user/login', {
        body: '{"username": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.statusCode).toBe(400);
    });

    it('writes an audit record for a successful login', async () => {
      const { profile, password } = await ctx().createUser();
      const before = await auditCount('loginSucceeded', profile.username);
      await ctx().login(profile.username, password);
      expect(await auditCount('loginSucceeded', profile.username)).toBe(before + 1);
    });
  });

  describe('GET /ui/user/login', () => {
    it('should require authentication', async () => {
      const response = await ctx().call('GET', '/ui/user/login');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ errorToken: 'invalidSessionToken', errorDescription: 'Invalid session token' });
    });

    it('answers the profile and escalated for a live session', async () => {
      const token = await ctx().adminToken();
      const response = await ctx().call('GET', '/ui/user/login', { token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ userProfile: { username: 'admin' }, escalated: false });
    });

    it('refuses a garbage, a forged, an alg-none and an expired token', async () => {
      const key = Buffer.from(
        (await new SettingsRepository(ctx().app.services.database.db).get('session.signingKey'))!,
        'base64',
      );
      const valid = await ctx().adminToken();
      const [, payload] = valid.split('.');
      const algNone = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
      const forged = await new SignJWT({ sid: 'x' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('1')
        .setIssuer('manifold')
        .setAudience('manifold-console')
        .setExpirationTime('1h')
        .sign(Buffer.from('not-the-key-not-the-key-not-the-key!'));
      const sid = JSON.parse(Buffer.from(payload!, 'base64url').toString()).sid;
      const expired = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('1')
        .setIssuer('manifold')
        .setAudience('manifold-console')
        .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
        .sign(key);
      const wrongAlg = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
        .setSubject('1')
        .setIssuer('manifold')
        .setAudience('manifold-console')
        .setExpirationTime('1h')
        .sign(Buffer.concat([key, key]));
      for (const token of ['garbage', algNone, forged, expired, wrongAlg]) {
        const response = await ctx().call('GET', '/ui/user/login', { token });
        expect(response.statusCode, token).toBe(401);
      }
    });
  });

  describe('POST /ui/user/logout', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/user/logout')).statusCode).toBe(401);
    });

    it('revokes the token on the server', async () => {
      const token = await ctx().login('admin', adminPassword);
      const sessionId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
      const revokedAt = async () =>
        (
          await ctx()
            .app.services.database.db.selectFrom('sessions')
            .select('revoked_at')
            .where('id', '=', sessionId)
            .executeTakeFirstOrThrow()
        ).revoked_at;
      expect(await revokedAt()).toBeNull();
      expect((await ctx().call('POST', '/ui/user/logout', { token })).statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(401);
      expect(await revokedAt()).toBeTruthy();
    });
  });

  describe('POST /ui/user/refresh', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/user/refresh')).statusCode).toBe(401);
    });

    it('answers a new working token and ends the old one', async () => {
      const old = await ctx().login('admin', adminPassword);
      const response = await ctx().call('POST', '/ui/user/refresh', { token: old });
      expect(response.statusCode).toBe(200);
      const fresh = response.json().sessionToken;
      expect(fresh).not.toBe(old);
      expect((await ctx().call('GET', '/ui/user/login', { token: fresh })).statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token: old })).statusCode).toBe(401);
    });
  });

  describe('X-API-Version', () => {
    it('accepts 1 and no header, refuses another version with 400', async () => {
      expect((await ctx().call('GET', '/ui/admin/state', { headers: { 'x-api-version': '1' } })).statusCode).toBe(200);
      const response = await ctx().call('GET', '/ui/admin/state', { headers: { 'x-api-version': '7' } });
      expect(response.statusCode).toBe(400);
      expect(response.json().errorToken).toBe('unsupportedApiVersion');
    });
  });
});

describeEachDatabase(
  'login throttling',
  (ctx) => {
    it('locks a username after repeated failures, with the same answer whether or not it exists', async () => {
      const { profile, password } = await ctx().createUser();
      for (const username of [profile.username, 'ghost-user']) {
        for (let i = 0; i < 3; i += 1) {
          const response = await ctx().call('POST', '/ui/user/login', { body: { username, password: 'wrong' } });
          expect(response.json().errorToken).toBe('passwordIncorrect');
        }
        const locked = await ctx().call('POST', '/ui/user/login', { body: { username, password: 'wrong' } });
        expect(locked.statusCode).toBe(420);
        expect(locked.json().errorToken).toBe('loginTemporarilyLocked');
      }
      // even the right password is refused while locked
      const right = await ctx().call('POST', '/ui/user/login', { body: { username: profile.username, password } });
      expect(right.json().errorToken).toBe('loginTemporarilyLocked');
      // other users are not affected
      expect(
        (await ctx().call('POST', '/ui/user/login', { body: { username: 'admin', password: adminPassword } })).statusCode,
      ).toBe(200);
    });

    it('slows answers down after the configured number of failures', async () => {
      const { profile } = await ctx().createUser();
      for (let i = 0; i < 2; i += 1) {
        await ctx().call('POST', '/ui/user/login', { body: { username: profile.username, password: 'wrong' } });
      }
      const started = Date.now();
      await ctx().call('POST', '/ui/user/login', { body: { username: profile.username, password: 'wrong' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    });
  },
  { LOGIN_MAX_FAILURES: '3', LOGIN_SLOW_AFTER: '2', LOGIN_SLOWDOWN_MS: '300' },
);
