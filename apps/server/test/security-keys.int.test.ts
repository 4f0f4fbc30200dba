import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './helpers/software-authenticator.js';
import { buildUserInput, describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';
import { clientCredentialsToken } from './helpers/oauth-client.js';

const origin = 'https://manifold.example';
const rpId = 'manifold.example';
const env = { PUBLIC_URL: origin, ESCALATION_SECONDS: '120' };

async function options(ctx: TestApp, token: string, kind: 'attestation' | 'assertion'): Promise<string> {
  const response = await ctx.call('POST', `/ui/authenticators/${kind}-options/generate`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ challenge: string }>().challenge;
}

async function register(ctx: TestApp, token: string, key: SoftwareAuthenticator, name = 'Desk key') {
  const challenge = await options(ctx, token, 'attestation');
  return ctx.call('POST', '/ui/authenticators/add', { token, body: { name, credential: key.register(challenge) } });
}

async function escalate(ctx: TestApp, token: string, key: SoftwareAuthenticator) {
  const challenge = await options(ctx, token, 'assertion');
  return ctx.call('POST', '/ui/authenticators/escalate-login', { token, body: { credential: key.assert(challenge) } });
}

async function escalated(ctx: TestApp, token: string): Promise<boolean> {
  return (await ctx.call('GET', '/ui/user/login', { token })).json<{ escalated: boolean }>().escalated;
}

async function storedCounter(ctx: TestApp, credentialId: string): Promise<number> {
  const row = await ctx.app.services.database.db
    .selectFrom('authenticators')
    .select('counter')
    .where('credential_id', '=', credentialId)
    .executeTakeFirstOrThrow();
  return Number(row.counter);
}

describeEachDatabase(
  'security keys and escalation',
  (ctx) => {
    describe('POST /ui/authenticators/add', () => {
      it('should require authentication', async () => {
        expectToken(await ctx().call('GET', '/ui/authenticators/list'), 401, 'invalidSessionToken');
        expectToken(await ctx().call('POST', '/ui/authenticators/attestation-options/generate'), 401, 'invalidSessionToken');
      });

      it('registers a software ES256 key with none attestation and lists it', async () => {
        const { token, profile } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        const response = await register(ctx(), token, key);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ name: 'Desk key', lastUsedAt: null });
        const list = await ctx().call('GET', '/ui/authenticators/list', { token });
        expect(list.json()).toMatchObject({ data: [{ name: 'Desk key' }], totalNumOfItems: 1 });
        const audit = await ctx()
          .app.services.database.db.selectFrom('audit_events')
          .select(['actor'])
          .where('event_type', '=', 'authenticatorAdded')
          .where('actor', '=', profile.username)
          .execute();
        expect(audit).toHaveLength(1);
        // another user sees none of them
        const other = await ctx().createUser();
        expect((await ctx().call('GET', '/ui/authenticators/list', { token: other.token })).json()).toMatchObject({ data: [] });
      });

      it('refuses a blank or over-long key name with authenticatorNameInvalid, storing nothing', async () => {
        const { token } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        for (const name of ['   ', 'k'.repeat(65)]) {
          expectToken(await register(ctx(), token, key, name), 420, 'authenticatorNameInvalid', 'name');
        }
        expect((await ctx().call('GET', '/ui/authenticators/list', { token })).json()).toMatchObject({ data: [] });
      });

      it("refuses an unknown challenge, a replayed response, a wrong origin and another session's challenge", async () => {
        const { token, profile, password } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        const unknown = key.register(randomBytes(32).toString('base64url'));
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: unknown } }),
          420,
          'authenticatorChallengeInvalid',
        );

        const challenge = await options(ctx(), token, 'attestation');
        const wrongOrigin = key.register(challenge, { origin: 'https://evil.example' });
        const body = expectToken(
          await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: wrongOrigin } }),
          420,
          'authenticatorResponseInvalid',
        );
        expect(body.errorDescription).toContain('origin');
        // the challenge was spent by the failed try: the right answer to it is refused too
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: key.register(challenge) } }),
          420,
          'authenticatorChallengeInvalid',
        );

        const fresh = await options(ctx(), token, 'attestation');
        const secondSession = await ctx().login(profile.username, password);
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', {
            token: secondSession,
            body: { name: 'k', credential: key.register(fresh) },
          }),
          420,
          'authenticatorChallengeInvalid',
        );

        const good = key.register(await options(ctx(), token, 'attestation'));
        expect(
          (await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: good } })).statusCode,
        ).toBe(200);
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: good } }),
          403,
          'escalationRequired',
        );
      });

      it('refuses a wrong relying party and an expired challenge', async () => {
        const { token } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        const challenge = await options(ctx(), token, 'attestation');
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', {
            token,
            body: { name: 'k', credential: key.register(challenge, { rpId: 'evil.example' }) },
          }),
          420,
          'authenticatorResponseInvalid',
        );
        const expiring = await options(ctx(), token, 'attestation');
        await ctx()
          .app.services.database.db.updateTable('webauthn_challenges')
          .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('challenge_sha256', '=', createHash('sha256').update(expiring).digest('hex'))
          .execute();
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', { token, body: { name: 'k', credential: key.register(expiring) } }),
          420,
          'authenticatorChallengeInvalid',
        );
      });
    });

    describe('POST /ui/authenticators/escalate-login', () => {
      it('escalates the session for ESCALATION_SECONDS after a verified assertion', async () => {
        const { token, profile, password } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        expect(await escalated(ctx(), token)).toBe(false);
        const before = Date.now();
        const response = await escalate(ctx(), token, key);
        expect(response.statusCode, response.body).toBe(200);
        const until = Date.parse(response.json<{ escalatedUntil: string }>().escalatedUntil);
        expect(until).toBeGreaterThanOrEqual(before + 119_000);
        expect(until).toBeLessThanOrEqual(Date.now() + 121_000);
        expect(await escalated(ctx(), token)).toBe(true);
        expect(await storedCounter(ctx(), key.id)).toBe(1);
        // a refreshed token keeps the same escalation end; another session of the user is not escalated
        const refreshed = (await ctx().call('POST', '/ui/user/refresh', { token })).json<{ sessionToken: string }>().sessionToken;
        expect(await escalated(ctx(), refreshed)).toBe(true);
        const until2 = await ctx()
          .app.services.database.db.selectFrom('sessions')
          .select('escalated_until')
          .where('escalated_until', 'is not', null)
          .where('revoked_at', 'is', null)
          .execute();
        expect(until2.map((row) => row.escalated_until)).toContain(response.json<{ escalatedUntil: string }>().escalatedUntil);
        expect(await escalated(ctx(), await ctx().login(profile.username, password))).toBe(false);
      });

      it('refuses an unknown challenge, a replay, a wrong origin and a counter that did not move', async () => {
        const { token } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        const call = (credential: unknown) =>
          ctx().call('POST', '/ui/authenticators/escalate-login', { token, body: { credential } });

        expectToken(await call(key.assert(randomBytes(32).toString('base64url'))), 420, 'authenticatorChallengeInvalid');

        const first = key.assert(await options(ctx(), token, 'assertion'));
        expect((await call(first)).statusCode).toBe(200);
        expectToken(await call(first), 420, 'authenticatorChallengeInvalid');

        expectToken(
          await call(key.assert(await options(ctx(), token, 'assertion'), { origin: 'https://evil.example' })),
          420,
          'authenticatorResponseInvalid',
        );
        const cloned = await call(key.assert(await options(ctx(), token, 'assertion'), { counter: 1 }));
        expect(expectToken(cloned, 420, 'authenticatorResponseInvalid').errorDescription).toMatch(/counter/i);

        // an attestation challenge is no assertion challenge
        expectToken(await call(key.assert(await options(ctx(), token, 'attestation'))), 420, 'authenticatorChallengeInvalid');

        // a key of someone else is not theirs to escalate with
        const other = await ctx().createUser();
        const foreign = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), other.token, foreign)).statusCode).toBe(200);
        expectToken(await call(foreign.assert(await options(ctx(), token, 'assertion'))), 420, 'authenticatorNotPresent');

        const failures = await ctx()
          .app.services.database.db.selectFrom('audit_events')
          .select('id')
          .where('event_type', '=', 'escalationFailed')
          .execute();
        expect(failures.length).toBeGreaterThanOrEqual(6);
      });

      it('asks for a key before giving assertion options', async () => {
        const { token } = await ctx().createUser();
        expectToken(
          await ctx().call('POST', '/ui/authenticators/assertion-options/generate', { token }),
          420,
          'authenticatorNotPresent',
        );
      });

      it('lets the escalation lapse when its time is over', async () => {
        const { token } = await ctx().createUser({ role: 'ADMIN' });
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        expect(await escalated(ctx(), token)).toBe(true);
        await ctx()
          .app.services.database.db.updateTable('sessions')
          .set({ escalated_until: new Date(Date.now() - 1000).toISOString() })
          .where('escalated', '=', 1)
          .execute();
        expect(await escalated(ctx(), token)).toBe(false);
        const victim = await ctx().createUser();
        expectToken(
          await ctx().call('POST', '/ui/user/delete', { token, body: { username: victim.profile.username } }),
          403,
          'escalationRequired',
        );
      });
    });

    describe('sensitive actions', () => {
      it('refuses deleting a user and re-keying without escalation to an administrator with a key, then allows them', async () => {
        const { token } = await ctx().createUser({ role: 'ADMIN' });
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        const victim = await ctx().createUser();
        expectToken(
          await ctx().call('POST', '/ui/user/delete', { token, body: { username: victim.profile.username } }),
          403,
          'escalationRequired',
        );
        expectToken(
          await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC' } }),
          403,
          'escalationRequired',
        );
        expect(
          await ctx()
            .call('GET', '/ui/user/list', { token })
            .then((r) => r.statusCode),
        ).toBe(200);
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        const deleted = await ctx().call('POST', '/ui/user/delete', { token, body: { username: victim.profile.username } });
        expect(deleted.statusCode, deleted.body).toBe(200);
      });

      it('needs escalation from an administrator with a key to set another user’s password or role, or add an ADMIN', async () => {
        const { token, profile } = await ctx().createUser({ role: 'ADMIN' });
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        const other = await ctx().createUser();
        const before = await ctx()
          .app.services.database.db.selectFrom('users')
          .select(['role', 'password_hash'])
          .where('username', '=', other.profile.username)
          .executeTakeFirstOrThrow();
        const edit = (body: Record<string, unknown>) => ctx().call('POST', '/ui/user/edit', { token, body });
        const added = buildUserInput({ role: 'ADMIN' });
        for (const response of [
          await edit({ username: other.profile.username, password: 'Another-long-passw0rd!' }),
          await edit({ username: other.profile.username, role: 'ADMIN' }),
          await ctx().call('POST', '/ui/user/add', { token, body: added }),
        ]) {
          expectToken(response, 403, 'escalationRequired');
        }
        expect(
          await ctx()
            .app.services.database.db.selectFrom('users')
            .select(['role', 'password_hash'])
            .where('username', '=', other.profile.username)
            .executeTakeFirstOrThrow(),
        ).toEqual(before);
        expect((await ctx().call('GET', `/ui/user/list?search=${added.username}`, { token })).json()).toMatchObject({
          totalNumOfItems: 0,
        });
        // what is not someone's account needs none: another's name, the same role again, one's own profile
        expect((await edit({ username: other.profile.username, firstName: 'Renamed', role: 'USER' })).statusCode).toBe(200);
        expect((await edit({ username: profile.username, firstName: 'Me' })).statusCode).toBe(200);
        expect((await ctx().call('POST', '/ui/user/add', { token, body: buildUserInput() })).statusCode).toBe(200);
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        const promoted = await edit({ username: other.profile.username, role: 'ADMIN' });
        expect(promoted.statusCode, promoted.body).toBe(200);
        expect(promoted.json()).toMatchObject({ role: 'ADMIN' });
        expect((await ctx().call('POST', '/ui/user/add', { token, body: added })).statusCode).toBe(200);
      });

      it('needs escalation from an administrator with a key to change another user’s e-mail or turn their single sign-on on', async () => {
        const { token } = await ctx().createUser({ role: 'ADMIN' });
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        const other = await ctx().createUser();
        const stored = () =>
          ctx()
            .app.services.database.db.selectFrom('users')
            .select(['email', 'use_sso'])
            .where('username', '=', other.profile.username)
            .executeTakeFirstOrThrow()
            .then((row) => ({ email: row.email, use_sso: Number(row.use_sso) }));
        const edit = (body: Record<string, unknown>) =>
          ctx().call('POST', '/ui/user/edit', { token, body: { username: other.profile.username, ...body } });
        const newEmail = `taken-over-${other.profile.username}@example.org`;
        for (const change of [{ email: newEmail }, { useSso: true }, { email: newEmail, useSso: true }]) {
          expectToken(await edit(change), 403, 'escalationRequired');
        }
        expect(await stored()).toEqual({ email: other.profile.email, use_sso: 0 });
        // the user form sends the whole profile: the same e-mail and single sign-on left off need none
        const unchanged = await edit({ firstName: 'Renamed', email: other.profile.email, useSso: false });
        expect(unchanged.statusCode, unchanged.body).toBe(200);
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        const changed = await edit({ email: newEmail, useSso: true });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await stored()).toEqual({ email: newEmail, use_sso: 1 });
      });

      it('needs escalation from a user without a password who holds a key to change their e-mail or set a first password', async () => {
        const { token, profile } = await ctx().createUser();
        // as an account single sign-on created: no password
        await ctx()
          .app.services.database.db.updateTable('users')
          .set({ password_hash: null, use_sso: 1 })
          .where('username', '=', profile.username)
          .execute();
        const key = new SoftwareAuthenticator(rpId, origin);
        expect((await register(ctx(), token, key)).statusCode).toBe(200);
        const edit = (body: Record<string, unknown>) =>
          ctx().call('POST', '/ui/user/edit', { token, body: { username: profile.username, ...body } });
        const newEmail = `moved-${profile.username}@example.org`;
        for (const change of [{ email: newEmail }, { password: 'A-first-long-passw0rd!' }]) {
          expectToken(await edit(change), 403, 'escalationRequired');
        }
        const row = await ctx()
          .app.services.database.db.selectFrom('users')
          .select(['email', 'password_hash'])
          .where('username', '=', profile.username)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ email: profile.email, password_hash: null });
        expect((await edit({ firstName: 'Me', email: profile.email, useSso: true })).statusCode).toBe(200);
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        const changed = await edit({ email: newEmail, password: 'A-first-long-passw0rd!' });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(changed.json()).toMatchObject({ email: newEmail });
        await ctx().login(profile.username, 'A-first-long-passw0rd!');
      });

      it('lets an administrator without a key act without escalation (setting off)', async () => {
        const victim = await ctx().createUser();
        const response = await ctx().call('POST', '/ui/user/delete', {
          token: await ctx().adminToken(),
          body: { username: victim.profile.username },
        });
        expect(response.statusCode, response.body).toBe(200);
      });

      it('needs escalation to remove a key or add another one', async () => {
        const { token } = await ctx().createUser();
        const key = new SoftwareAuthenticator(rpId, origin);
        const added = (await register(ctx(), token, key)).json<{ authenticatorId: string }>();
        const second = new SoftwareAuthenticator(rpId, origin);
        expectToken(
          await ctx().call('POST', '/ui/authenticators/attestation-options/generate', { token }),
          403,
          'escalationRequired',
        );
        expectToken(
          await ctx().call('POST', '/ui/authenticators/delete', { token, body: { authenticatorId: added.authenticatorId } }),
          403,
          'escalationRequired',
        );
        expect((await escalate(ctx(), token, key)).statusCode).toBe(200);
        expect((await register(ctx(), token, second, 'Spare')).statusCode).toBe(200);
        const removed = await ctx().call('POST', '/ui/authenticators/delete', {
          token,
          body: { authenticatorId: added.authenticatorId },
        });
        expect(removed.statusCode, removed.body).toBe(200);
        expectToken(
          await ctx().call('POST', '/ui/authenticators/delete', { token, body: { authenticatorId: added.authenticatorId } }),
          420,
          'authenticatorNotPresent',
          'authenticatorId',
        );
        expect((await ctx().call('GET', '/ui/authenticators/list', { token })).json()).toMatchObject({
          data: [{ name: 'Spare' }],
        });
      });
    });

    describe('API tokens', () => {
      it('neither register a security key on the account they act for nor escalate with one (403 actionNotAllowed)', async () => {
        // an administrator without a key and an OAuth client of theirs with the USER authority
        const { token: owner } = await ctx().createUser({ role: 'ADMIN' });
        const clientId = `keys-${Math.random().toString(36).slice(2, 8)}`;
        const client = await ctx().call('POST', '/ui/client/add', {
          token: owner,
          body: {
            clientId,
            authorizedGrantTypes: 'client_credentials',
            webServerRedirectUri: 'https://mes.example/callback',
            authorities: 'USER',
            accessTokenValidity: 600,
          },
        });
        expect(client.statusCode, client.body).toBe(200);
        const apiToken = await clientCredentialsToken(ctx(), clientId, client.json<{ clientSecret: string }>().clientSecret);
        expect((await ctx().call('GET', '/ui/user/login', { token: apiToken })).statusCode).toBe(200);

        const key = new SoftwareAuthenticator(rpId, origin);
        for (const kind of ['attestation', 'assertion'] as const) {
          expectToken(
            await ctx().call('POST', `/ui/authenticators/${kind}-options/generate`, { token: apiToken }),
            403,
            'actionNotAllowed',
          );
        }
        expectToken(
          await ctx().call('POST', '/ui/authenticators/add', {
            token: apiToken,
            body: { name: 'Planted', credential: key.register(randomBytes(32).toString('base64url')) },
          }),
          403,
          'actionNotAllowed',
        );
        // nothing was planted on the owner's account: their sensitive actions are not held back by a key they never had
        expect((await ctx().call('GET', '/ui/authenticators/list', { token: owner })).json()).toMatchObject({ data: [] });
      });
    });
  },
  env,
);

describeEachDatabase(
  'escalation required for every administrator',
  (ctx) => {
    it("refuses a sensitive action from an administrator without a key, and not from a user's own calls", async () => {
      const victim = await ctx().createUser();
      const admin = await ctx().adminToken();
      // the setting's default, until an administrator chooses
      expect((await ctx().call('GET', '/ui/admin/escalation', { token: admin })).json()).toEqual({ requiredForAdmins: true });
      expectToken(
        await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: victim.profile.username } }),
        403,
        'escalationRequired',
      );
      // the first key can still be added, then used to escalate
      const key = new SoftwareAuthenticator(rpId, origin);
      expect((await register(ctx(), admin, key)).statusCode).toBe(200);
      expect((await escalate(ctx(), admin, key)).statusCode).toBe(200);
      expect(
        (await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: victim.profile.username } })).statusCode,
      ).toBe(200);
    });
  },
  { ...env, ESCALATION_REQUIRED_FOR_ADMINS: 'true' },
);

describeEachDatabase(
  'the administrators’ escalation setting (admin/escalation)',
  (ctx) => {
    it('should require authentication, an administrator and security-config', async () => {
      expectToken(await ctx().call('GET', '/ui/admin/escalation'), 401, 'invalidSessionToken');
      const { token } = await ctx().createUser();
      expectToken(await ctx().call('GET', '/ui/admin/escalation', { token }), 403, 'actionNotAllowed');
      expectToken(
        await ctx().call('POST', '/ui/admin/escalation', { token, body: { requiredForAdmins: true } }),
        403,
        'actionNotAllowed',
      );
      const admin = await ctx().adminToken();
      expect((await ctx().call('POST', '/ui/admin/escalation', { token: admin, body: {} })).statusCode).toBe(400);
    });

    it('turned on by an administrator, makes every administrator escalate at once; turning it off is sensitive', async () => {
      const admin = await ctx().adminToken();
      // ESCALATION_REQUIRED_FOR_ADMINS is only the default
      expect((await ctx().call('GET', '/ui/admin/escalation', { token: admin })).json()).toEqual({ requiredForAdmins: false });
      const other = await ctx().createUser({ role: 'ADMIN' });
      const victim = await ctx().createUser();
      const turnedOn = await ctx().call('POST', '/ui/admin/escalation', { token: admin, body: { requiredForAdmins: true } });
      expect(turnedOn.statusCode, turnedOn.body).toBe(200);
      expect(turnedOn.json()).toEqual({ requiredForAdmins: true });
      expect((await ctx().call('GET', '/ui/admin/escalation', { token: other.token })).json()).toEqual({
        requiredForAdmins: true,
      });

      // an administrator without a key is now refused a sensitive action; a user's own calls are not touched
      expectToken(
        await ctx().call('POST', '/ui/user/delete', { token: other.token, body: { username: victim.profile.username } }),
        403,
        'escalationRequired',
      );
      expect(
        (
          await ctx().call('POST', '/ui/user/edit', {
            token: victim.token,
            body: { username: victim.profile.username, firstName: 'V' },
          })
        ).statusCode,
      ).toBe(200);
      // nor can it be turned off without escalating
      expectToken(
        await ctx().call('POST', '/ui/admin/escalation', { token: other.token, body: { requiredForAdmins: false } }),
        403,
        'escalationRequired',
      );

      // the first key can be added, then used to escalate and turn the requirement off
      const key = new SoftwareAuthenticator(rpId, origin);
      expect((await register(ctx(), other.token, key)).statusCode).toBe(200);
      expect((await escalate(ctx(), other.token, key)).statusCode).toBe(200);
      expect(
        (await ctx().call('POST', '/ui/admin/escalation', { token: other.token, body: { requiredForAdmins: false } })).json(),
      ).toEqual({ requiredForAdmins: false });
      // an administrator without a key acts again without escalating
      expect(
        (await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: victim.profile.username } })).statusCode,
      ).toBe(200);

      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select(['actor', 'subject'])
        .where('event_type', '=', 'escalationPolicyChanged')
        .orderBy('id')
        .execute();
      expect(audit).toEqual([
        { actor: 'admin', subject: 'true' },
        { actor: other.profile.username, subject: 'false' },
      ]);
    });
  },
  env,
);
