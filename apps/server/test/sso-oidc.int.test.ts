import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectToken, liveSessionIds } from './helpers/test-app.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';

const redirectUri = 'http://127.0.0.1:8080/login/oidc';
let idp: TestOpenIdProvider;
/** A provider whose ID tokens carry no e-mail or names: those are only in its userinfo answer. */
let userinfoIdp: TestOpenIdProvider;
beforeAll(async () => {
  idp = await startOpenIdProvider(redirectUri);
  userinfoIdp = await startOpenIdProvider(redirectUri, { claimsInUserinfoOnly: true });
});
afterAll(async () => {
  await idp.close();
  await userinfoIdp.close();
});

describeEachDatabase(
  'single sign-on with OpenID Connect',
  (ctx) => {
    let providerId: string;
    let strictProviderId: string;
    const unique = () => Math.random().toString(36).slice(2, 8);

    const providerInput = (overrides: Record<string, unknown> = {}) => ({
      name: 'Company login',
      connection: 'oidc',
      enabled: true,
      domain: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      redirectUri,
      defaultRole: 'USER',
      allowCreate: true,
      allowedDomains: '',
      ...overrides,
    });

    /** Starts a login as the browser would: the authorization address and the cookie that binds it. */
    const start = async (id: string) => {
      const response = await ctx().call('GET', `/ui/user/oidc/authenticate/${id}`);
      expect(response.statusCode, response.body).toBe(302);
      const cookie = String(response.headers['set-cookie']).split(';')[0]!;
      expect(String(response.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);
      return { location: String(response.headers.location), cookie };
    };
    const finish = (cookie: string | undefined, body: Record<string, string>, path = '/ui/sessions') =>
      ctx().call('POST', path, { body, headers: cookie ? { cookie } : {} });

    /** The whole round trip: start, the provider, back to `POST sessions` with what the provider returned. */
    const roundTrip = async (
      id: string,
      options: { nonce?: string; withCookie?: boolean; provider?: TestOpenIdProvider } = {},
    ) => {
      const { location, cookie } = await start(id);
      const url = new URL(location);
      if (options.nonce) url.searchParams.set('nonce', options.nonce);
      const callback = await (options.provider ?? idp).browse(url.href);
      const answer = { code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')!, redirectUri };
      return finish(options.withCookie === false ? undefined : cookie, answer);
    };

    describe('POST /ui/admin/sso/provider', () => {
      it('should require authentication, and ADMIN', async () => {
        expect((await ctx().call('GET', '/ui/admin/sso')).statusCode).toBe(401);
        const { token } = await ctx().createUser();
        expectToken(
          await ctx().call('POST', '/ui/admin/sso/provider', { token, body: providerInput() }),
          403,
          'actionNotAllowed',
        );
      });

      it('stores the provider with its secret sealed, shows it without the secret and offers it on the login page', async () => {
        const admin = await ctx().adminToken();
        expectToken(
          await ctx().call('POST', '/ui/admin/sso/provider', { token: admin, body: providerInput({ clientSecret: undefined }) }),
          420,
          'ssoProviderInvalid',
          'clientSecret',
        );
        const saved = await ctx().call('POST', '/ui/admin/sso/provider', { token: admin, body: providerInput() });
        expect(saved.statusCode, saved.body).toBe(200);
        expect(saved.body).not.toContain(idp.clientSecret);
        providerId = saved.json<{ id: string }>().id;
        const strict = await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: providerInput({ name: 'No new accounts', allowCreate: false }),
        });
        strictProviderId = strict.json<{ id: string }>().id;

        const row = await ctx()
          .app.services.database.db.selectFrom('identity_providers')
          .select('client_secret_sealed')
          .where('id', '=', providerId)
          .executeTakeFirstOrThrow();
        expect(row.client_secret_sealed).not.toContain(idp.clientSecret);
        const inForce = await ctx().call('GET', '/ui/admin/sso', { token: admin });
        expect(inForce.json()).toMatchObject({
          enabled: true,
          data: expect.arrayContaining([expect.objectContaining({ id: providerId, clientSecretSet: true })]),
        });
        expect(inForce.body).not.toContain(idp.clientSecret);
        const options = await ctx().call('GET', '/ui/user/sso/providers');
        expect(options.json().data).toContainEqual({ id: providerId, name: 'Company login', connection: 'oidc' });

        // an edit without a secret keeps the stored one
        const edited = await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: providerInput({ id: providerId, clientSecret: undefined, name: 'Company login' }),
        });
        expect(edited.statusCode, edited.body).toBe(200);
        expect(edited.json()).toMatchObject({ clientSecretSet: true });
      });
    });

    describe('the login', () => {
      it('creates the account on the first login and finds it again by issuer and subject', async () => {
        const subject = `sub-${unique()}`;
        const username = `ada-${unique()}`;
        idp.signInAs(subject, {
          email: `${username}@example.com`,
          preferredUsername: username,
          givenName: 'Ada',
          familyName: 'L',
        });
        const first = await start(providerId);
        const callback = await idp.browse(first.location);
        const userinfoBefore = idp.userinfoCalls();
        const login = await finish(first.cookie, {
          code: callback.searchParams.get('code')!,
          state: callback.searchParams.get('state')!,
          redirectUri,
        });
        expect(login.statusCode, login.body).toBe(200);
        // everything was in the ID token: the userinfo endpoint is not asked
        expect(idp.userinfoCalls()).toBe(userinfoBefore);
        const body = login.json<{ sessionToken: string; userProfile: { username: string; role: string; useSso: boolean } }>();
        expect(body.userProfile).toMatchObject({ username, role: 'USER', useSso: true, firstName: 'Ada' });
        expect((await ctx().call('GET', '/ui/user/login', { token: body.sessionToken })).statusCode).toBe(200);

        // the same subject again, through user/login/token (no state: the cookie and PKCE bind it)
        idp.signInAs(subject, { email: `${username}@example.com`, preferredUsername: `${username}-renamed` });
        const second = await start(providerId);
        const again = await idp.browse(second.location);
        const token = await finish(second.cookie, { code: again.searchParams.get('code')!, redirectUri }, '/ui/user/login/token');
        expect(token.statusCode, token.body).toBe(200);
        expect(token.json().userProfile.username).toBe(username);

        const links = await ctx()
          .app.services.database.db.selectFrom('external_identities')
          .select(['issuer', 'subject'])
          .where('subject', '=', subject)
          .execute();
        expect(links).toEqual([{ issuer: idp.issuer, subject }]);
      });

      it('takes the e-mail and names from the userinfo endpoint when the ID token lacks them', async () => {
        const admin = await ctx().adminToken();
        const saved = await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: providerInput({
            name: 'Claims in userinfo',
            domain: userinfoIdp.issuer,
            clientId: userinfoIdp.clientId,
            clientSecret: userinfoIdp.clientSecret,
          }),
        });
        expect(saved.statusCode, saved.body).toBe(200);
        const subject = `sub-${unique()}`;
        const username = `katherine-${unique()}`;
        userinfoIdp.signInAs(subject, {
          email: `${username}@example.com`,
          preferredUsername: username,
          givenName: 'Katherine',
          familyName: 'Johnson',
        });
        const before = userinfoIdp.userinfoCalls();
        const login = await roundTrip(saved.json<{ id: string }>().id, { provider: userinfoIdp });
        expect(login.statusCode, login.body).toBe(200);
        expect(login.json().userProfile).toMatchObject({
          username,
          email: `${username}@example.com`,
          firstName: 'Katherine',
          lastName: 'Johnson',
          useSso: true,
        });
        expect(userinfoIdp.userinfoCalls()).toBe(before + 1);
      });

      it('refuses a state that is not the one this browser started with, and the login cannot be retried', async () => {
        idp.signInAs(`sub-${unique()}`, { email: `x${unique()}@example.com` });
        const { location, cookie } = await start(providerId);
        const callback = await idp.browse(location);
        const code = callback.searchParams.get('code')!;
        expectToken(await finish(cookie, { code, state: 'forged-state', redirectUri }), 420, 'ssoStateMismatch', 'state');
        expectToken(
          await finish(cookie, { code, state: callback.searchParams.get('state')!, redirectUri }),
          420,
          'ssoLoginNotStarted',
        );
      });

      it('refuses an answer without the cookie of the browser that started the login', async () => {
        idp.signInAs(`sub-${unique()}`, { email: `x${unique()}@example.com` });
        expectToken(await roundTrip(providerId, { withCookie: false }), 420, 'ssoLoginNotStarted');
      });

      it('refuses an ID token whose nonce is not the login’s', async () => {
        idp.signInAs(`sub-${unique()}`, { email: `x${unique()}@example.com` });
        expectToken(await roundTrip(providerId, { nonce: 'a-nonce-this-server-never-sent' }), 420, 'ssoLoginFailed');
      });

      it('never merges into a password account of the same name', async () => {
        const { profile } = await ctx().createUser();
        idp.signInAs(`sub-${unique()}`, { email: profile.email, preferredUsername: profile.username });
        expectToken(await roundTrip(providerId), 420, 'ssoAccountNotLinked');
      });

      it('links an account an administrator set up for single sign-on when the e-mail matches', async () => {
        const { profile } = await ctx().createUser({ useSso: true } as never);
        idp.signInAs(`sub-${unique()}`, { email: profile.email, preferredUsername: profile.username });
        const login = await roundTrip(providerId);
        expect(login.statusCode, login.body).toBe(200);
        expect(login.json().userProfile.username).toBe(profile.username);
      });

      it('links or creates no account by an e-mail the provider does not mark verified (email_verified missing or false)', async () => {
        const admin = await ctx().adminToken();
        const userinfoProvider = await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: providerInput({
            name: `Unverified in userinfo ${unique()}`,
            domain: userinfoIdp.issuer,
            clientId: userinfoIdp.clientId,
            clientSecret: userinfoIdp.clientSecret,
          }),
        });
        expect(userinfoProvider.statusCode, userinfoProvider.body).toBe(200);
        const { profile } = await ctx().createUser({ useSso: true } as never);
        const { db } = ctx().app.services.database;
        const { id: userId } = await db
          .selectFrom('users')
          .select('id')
          .where('username', '=', profile.username)
          .executeTakeFirstOrThrow();
        for (const emailVerified of [null, false]) {
          idp.signInAs(`sub-${unique()}`, { email: profile.email, preferredUsername: profile.username, emailVerified });
          expectToken(await roundTrip(providerId), 420, 'ssoAccountNotLinked');
          // the ID token's unverified e-mail is not taken from the userinfo answer either
          userinfoIdp.signInAs(`sub-${unique()}`, { email: profile.email, preferredUsername: profile.username, emailVerified });
          const viaUserinfo = await roundTrip(userinfoProvider.json<{ id: string }>().id, { provider: userinfoIdp });
          expectToken(viaUserinfo, 420, 'ssoAccountNotLinked');
        }
        expect(await db.selectFrom('external_identities').select('subject').where('user_id', '=', userId).execute()).toEqual([]);
        // a new account: its name would come from the unverified e-mail, and it would carry it
        const username = `unverified-${unique()}`;
        idp.signInAs(`sub-${unique()}`, { email: `${username}@example.com`, emailVerified: null });
        expectToken(await roundTrip(providerId), 420, 'ssoUserNotAllowed');
        expect(await db.selectFrom('users').select('id').where('email', '=', `${username}@example.com`).execute()).toEqual([]);
        // marked verified, the same e-mail links the account
        idp.signInAs(`sub-${unique()}`, { email: profile.email, preferredUsername: profile.username, emailVerified: true });
        const login = await roundTrip(providerId);
        expect(login.statusCode, login.body).toBe(200);
        expect(login.json().userProfile.username).toBe(profile.username);
      });

      it('ends the sessions of an account at once when an administrator turns its single sign-on off', async () => {
        const username = `off-${unique()}`;
        idp.signInAs(`sub-${unique()}`, { email: `${username}@example.com`, preferredUsername: username });
        const login = await roundTrip(providerId);
        expect(login.statusCode, login.body).toBe(200);
        const session = login.json<{ sessionToken: string }>().sessionToken;
        const admin = await ctx().adminToken();
        // a change of anything else keeps the session
        const renamed = await ctx().call('POST', '/ui/user/edit', { token: admin, body: { username, firstName: 'Renamed' } });
        expect(renamed.statusCode, renamed.body).toBe(200);
        expect((await ctx().call('GET', '/ui/user/login', { token: session })).statusCode).toBe(200);
        const off = await ctx().call('POST', '/ui/user/edit', { token: admin, body: { username, useSso: false } });
        expect(off.statusCode, off.body).toBe(200);
        expect(off.json().useSso).toBe(false);
        expectToken(await ctx().call('GET', '/ui/user/login', { token: session }), 401, 'invalidSessionToken');
        expect(await liveSessionIds(ctx().app, username)).toEqual([]);
        // and the provider no longer logs the account in
        expectToken(await roundTrip(providerId), 420, 'ssoUserNotAllowed');
      });

      it('links subjects that differ only in case, accents or trailing spaces to different people', async () => {
        const subject = `sub-${unique()}`;
        const owner = `owner-${unique()}`;
        idp.signInAs(subject, { email: `${owner}@example.com`, preferredUsername: owner });
        const first = await roundTrip(providerId);
        expect(first.statusCode, first.body).toBe(200);
        // other people at the provider (its subjects are exact strings, OIDC Core §2): distinct
        // links on every database (MariaDB compares issuer and subject as binary, migration 038,
        // trailing spaces included, migration 039)
        const others: { subject: string; username: string }[] = [];
        for (const other of [
          subject.toUpperCase(),
          `S${subject.slice(1)}`,
          `s\u00fc${subject.slice(2)}`,
          `${subject} `,
          `${subject}  `,
        ]) {
          const name = `other-${unique()}`;
          idp.signInAs(other, { email: `${name}@example.com`, preferredUsername: name });
          const login = await roundTrip(providerId);
          expect(login.statusCode, login.body).toBe(200);
          expect(login.json().userProfile.username).toBe(name);
          others.push({ subject: other, username: name });
        }
        // each subject is linked to its own user, found again by its exact subject
        for (const other of others) {
          idp.signInAs(other.subject, { email: `${other.username}@example.com`, preferredUsername: other.username });
          const again = await roundTrip(providerId);
          expect(again.statusCode, again.body).toBe(200);
          expect(again.json().userProfile.username).toBe(other.username);
        }
        const links = await ctx()
          .app.services.database.db.selectFrom('external_identities')
          .innerJoin('users', 'users.id', 'external_identities.user_id')
          .select(['external_identities.subject', 'users.username'])
          .where('users.username', 'in', [owner, ...others.map((other) => other.username)])
          .execute();
        expect(links.sort((a, b) => (a.username < b.username ? -1 : 1))).toEqual(
          [{ subject, username: owner }, ...others].sort((a, b) => (a.username < b.username ? -1 : 1)),
        );
      });

      describe('an identity provider an administrator removes or turns off', () => {
        /** A provider of its own, and a login through it: answers the provider's id and the session token. */
        const providerAndLogin = async () => {
          const admin = await ctx().adminToken();
          const saved = await ctx().call('POST', '/ui/admin/sso/provider', {
            token: admin,
            body: providerInput({ name: `Short-lived ${unique()}` }),
          });
          expect(saved.statusCode, saved.body).toBe(200);
          const id = saved.json<{ id: string }>().id;
          const username = `sso-${unique()}`;
          idp.signInAs(`sub-${unique()}`, { email: `${username}@example.com`, preferredUsername: username });
          const login = await roundTrip(id);
          expect(login.statusCode, login.body).toBe(200);
          return { id, username, token: login.json<{ sessionToken: string }>().sessionToken };
        };
        const sessionCheck = (token: string) => ctx().call('GET', '/ui/user/login', { token });

        it('ends the sessions its logins opened, refreshed ones included, when it is turned off', async () => {
          const admin = await ctx().adminToken();
          const { id, username, token } = await providerAndLogin();
          const refreshed = await ctx().call('POST', '/ui/user/refresh', { token });
          expect(refreshed.statusCode, refreshed.body).toBe(200);
          const session = refreshed.json<{ sessionToken: string }>().sessionToken;
          const other = await ctx().createUser();
          const viaOtherProvider = `kept-${unique()}`;
          idp.signInAs(`sub-${unique()}`, { email: `${viaOtherProvider}@example.com`, preferredUsername: viaOtherProvider });
          const keptLogin = await roundTrip(providerId);
          expect(keptLogin.statusCode, keptLogin.body).toBe(200);

          // a change that leaves it on keeps the sessions
          const renamed = await ctx().call('POST', '/ui/admin/sso/provider', {
            token: admin,
            body: providerInput({ id, name: `Renamed ${unique()}` }),
          });
          expect(renamed.statusCode, renamed.body).toBe(200);
          expect((await sessionCheck(session)).statusCode).toBe(200);

          const off = await ctx().call('POST', '/ui/admin/sso/provider', {
            token: admin,
            body: providerInput({ id, name: 'Turned off', enabled: false }),
          });
          expect(off.statusCode, off.body).toBe(200);
          expect(off.json().enabled).toBe(false);
          expectToken(await sessionCheck(session), 401, 'invalidSessionToken');
          expectToken(await ctx().call('POST', '/ui/user/refresh', { token: session }), 401, 'invalidSessionToken');
          expect(await liveSessionIds(ctx().app, username)).toEqual([]);
          // a password session of another user, and a session of another provider, stay live
          expect((await sessionCheck(other.token)).statusCode).toBe(200);
          expect((await sessionCheck(keptLogin.json<{ sessionToken: string }>().sessionToken)).statusCode).toBe(200);
          expect((await sessionCheck(admin)).statusCode).toBe(200);

          // turning it on again brings no session back
          const on = await ctx().call('POST', '/ui/admin/sso/provider', {
            token: admin,
            body: providerInput({ id, name: 'Turned on', enabled: true }),
          });
          expect(on.statusCode, on.body).toBe(200);
          expectToken(await sessionCheck(session), 401, 'invalidSessionToken');
        });

        it('ends the sessions its logins opened when it is deleted', async () => {
          const admin = await ctx().adminToken();
          const { id, username, token } = await providerAndLogin();
          const other = await ctx().createUser();
          const deleted = await ctx().call('POST', '/ui/admin/sso/delete', { token: admin, body: { id } });
          expect(deleted.statusCode, deleted.body).toBe(200);
          expectToken(await sessionCheck(token), 401, 'invalidSessionToken');
          expect(await liveSessionIds(ctx().app, username)).toEqual([]);
          expect((await sessionCheck(other.token)).statusCode).toBe(200);
          expect((await sessionCheck(admin)).statusCode).toBe(200);
        });
      });

      /** `count` logins, each through the provider's callback one after the other, then back to the server at once. */
      const racingLogins = async (count: number) => {
        const answers: { cookie: string; body: Record<string, string> }[] = [];
        for (let i = 0; i < count; i += 1) {
          const { location, cookie } = await start(providerId);
          const callback = await idp.browse(location);
          answers.push({
            cookie,
            body: { code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')!, redirectUri },
          });
        }
        return Promise.all(answers.map(({ cookie, body }) => finish(cookie, body)));
      };

      it('links the account once when first logins of the same subject race, and every one of them succeeds', async () => {
        const { profile } = await ctx().createUser({ useSso: true } as never);
        const subject = `sub-${unique()}`;
        idp.signInAs(subject, { email: profile.email, preferredUsername: profile.username });
        const logins = await racingLogins(6);
        for (const login of logins) {
          expect(login.statusCode, login.body).toBe(200);
          expect(login.json().userProfile.username).toBe(profile.username);
        }
        const links = await ctx()
          .app.services.database.db.selectFrom('external_identities')
          .innerJoin('users', 'users.id', 'external_identities.user_id')
          .select(['external_identities.issuer', 'external_identities.subject', 'users.username'])
          .where('external_identities.subject', '=', subject)
          .execute();
        expect(links).toEqual([{ issuer: idp.issuer, subject, username: profile.username }]);
      });

      it('creates the account once when first logins of a new subject race, and every one of them succeeds', async () => {
        const subject = `sub-${unique()}`;
        const username = `race-${unique()}`;
        idp.signInAs(subject, { email: `${username}@example.com`, preferredUsername: username });
        const logins = await racingLogins(6);
        for (const login of logins) {
          expect(login.statusCode, login.body).toBe(200);
          expect(login.json().userProfile.username).toBe(username);
        }
        const users = await ctx()
          .app.services.database.db.selectFrom('users')
          .select('id')
          .where('username', '=', username)
          .execute();
        expect(users).toHaveLength(1);
        const links = await ctx()
          .app.services.database.db.selectFrom('external_identities')
          .select(['subject', 'user_id'])
          .where('subject', '=', subject)
          .execute();
        expect(links).toEqual([{ subject, user_id: users[0]!.id }]);
      });

      it('refuses a new subject when the provider may not create accounts', async () => {
        idp.signInAs(`sub-${unique()}`, { email: `x${unique()}@example.com` });
        expectToken(await roundTrip(strictProviderId), 420, 'ssoUserNotAllowed');
      });

      it('refuses an unknown or disabled provider', async () => {
        const unknown = await ctx().call('GET', '/ui/user/oidc/authenticate/no-such-provider');
        expect(unknown.statusCode).toBe(303);
        const back = new URL(String(unknown.headers.location));
        expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
        expect(back.searchParams.get('error')).toBe('ssoProviderNotFound');
        expect(unknown.headers['set-cookie']).toBeUndefined();
        const admin = await ctx().adminToken();
        await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: providerInput({ id: strictProviderId, name: 'No new accounts', enabled: false }),
        });
        const disabled = await ctx().call('GET', `/ui/user/oidc/authenticate/${strictProviderId}`);
        expect(new URL(String(disabled.headers.location)).searchParams.get('error')).toBe('ssoProviderNotFound');
        expect((await ctx().call('GET', '/ui/user/sso/providers')).json().data.map((p: { id: string }) => p.id)).not.toContain(
          strictProviderId,
        );
      });
    });
  },
  { PEER_ALLOWED_HOSTS: '127.0.0.1' },
);
