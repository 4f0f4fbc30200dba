import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';
import { readPostForm, startSamlIdp, type ResponseOptions, type SamlUser, type TestSamlIdp } from './helpers/saml-idp.js';

const publicUrl = 'http://127.0.0.1:8080';
let idp: TestSamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp();
});
afterAll(async () => {
  await idp.close();
});

const decode = (response: string) => Buffer.from(response, 'base64').toString('utf8');
const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

describeEachDatabase('single sign-on with SAML 2.0', (ctx) => {
  let providerId: string;
  const unique = () => Math.random().toString(36).slice(2, 8);

  /** The server sends the browser to the identity provider: the address and the login cookie. */
  const start = async (relayState?: string) => {
    const query = relayState ? `?RelayState=${encodeURIComponent(relayState)}` : '';
    const response = await ctx().call('GET', `/ui/user/saml2/authenticate/${providerId}${query}`);
    expect(response.statusCode, response.body).toBe(302);
    return { location: String(response.headers.location), cookie: String(response.headers['set-cookie']).split(';')[0]! };
  };
  /**
   * The browser's whole round: the server's redirect, the identity provider (logged in as `user`)
   * answering its form, the form posted to the assertion consumer, and the console page's
   * fragment read back — what the console then sends to `user/login/saml2/sso/{id}`.
   */
  const browse = async (user: SamlUser, options: ResponseOptions = {}, relayState?: string) => {
    const { location, cookie } = await start(relayState);
    const page = await fetch(location, { headers: { cookie: idp.session(user, options) } });
    expect(page.status, await page.clone().text()).toBe(200);
    const form = readPostForm(await page.text());
    const acs = await ctx().app.inject({
      method: 'POST',
      url: new URL(form.action).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        SAMLResponse: form.SAMLResponse,
        ...(form.RelayState !== undefined ? { RelayState: form.RelayState } : {}),
      }).toString(),
    });
    expect(acs.statusCode, acs.body).toBe(303);
    const fragment = new URLSearchParams(new URL(String(acs.headers.location)).hash.slice(1));
    return { cookie, samlResponse: fragment.get('samlResponse')!, relayState: fragment.get('RelayState') };
  };
  const finish = (cookie: string | undefined, samlResponse: string) =>
    ctx().call('POST', `/ui/user/login/saml2/sso/${providerId}`, { body: { samlResponse }, headers: cookie ? { cookie } : {} });

  it('configures a SAML identity provider (its signing certificate, no secret)', async () => {
    const admin = await ctx().adminToken();
    const base = {
      name: 'Corporate SAML',
      connection: 'saml',
      enabled: true,
      domain: idp.entityId,
      ssoUrl: idp.ssoUrl,
      defaultRole: 'USER',
      allowCreate: true,
      allowedDomains: 'example.com',
    };
    expectToken(
      await ctx().call('POST', '/ui/admin/sso/provider', {
        token: admin,
        body: { ...base, idpCertificate: 'not a certificate' },
      }),
      420,
      'ssoProviderInvalid',
      'idpCertificate',
    );
    // an empty name or entity id is a field problem (not a malformed request), and nothing is stored
    for (const [blank, field] of [
      [{ name: '   ' }, 'name'],
      [{ name: '' }, 'name'],
      [{ domain: '  ' }, 'domain'],
    ] as const) {
      expectToken(
        await ctx().call('POST', '/ui/admin/sso/provider', {
          token: admin,
          body: { ...base, idpCertificate: idp.certificatePem, ...blank },
        }),
        420,
        'ssoProviderInvalid',
        field,
      );
    }
    expect((await ctx().call('GET', '/ui/admin/sso', { token: admin })).json<{ data: unknown[] }>().data).toEqual([]);
    const saved = await ctx().call('POST', '/ui/admin/sso/provider', {
      token: admin,
      body: { ...base, idpCertificate: idp.certificatePem },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    providerId = saved.json<{ id: string }>().id;
    // the identity provider knows this server as a service provider (its metadata: entity id, assertion consumer)
    idp.trust({ entityId: publicUrl, acsUrl: `${publicUrl}/ui/user/saml2/acs/${providerId}` });
    expect((await ctx().call('GET', '/ui/admin/sso', { token: admin })).json()).toMatchObject({ samlEntityId: publicUrl });
  });

  it('sends the browser to the identity provider with an AuthnRequest, which the provider reads and answers', async () => {
    const { location } = await start('/orders');
    expect(location.startsWith(`${idp.ssoUrl}?`)).toBe(true);
    expect(new URL(location).searchParams.get('RelayState')).toBe('/orders');
    const name = `ada-${unique()}`;
    const round = await browse({ nameId: name, email: `${name}@example.com` }, {}, '/orders');
    expect(round.relayState).toBe('/orders');
    expect(idp.lastRequest()).toMatchObject({ acsUrl: `${publicUrl}/ui/user/saml2/acs/${providerId}` });
    expect(idp.lastRequest()!.id).toMatch(/^_/);
    // the identity provider's answer is signed over the assertion by samlify
    expect(decode(round.samlResponse)).toMatch(/<saml:Assertion[^>]*>.*<ds:Signature/s);
  });

  it('logs in with a signed assertion, creating the account, and refuses the same assertion again', async () => {
    const name = `grace-${unique()}`;
    const { cookie, samlResponse } = await browse({
      nameId: name,
      email: `${name}@example.com`,
      givenName: 'Grace',
      surname: 'H',
    });
    const login = await finish(cookie, samlResponse);
    expect(login.statusCode, login.body).toBe(200);
    const body = login.json<{ sessionToken: string; userProfile: Record<string, unknown> }>();
    expect(body.userProfile).toMatchObject({ username: name, firstName: 'Grace', lastName: 'H', role: 'USER', useSso: true });
    expect((await ctx().call('GET', '/ui/user/login', { token: body.sessionToken })).statusCode).toBe(200);

    // the same response with the cookie already used: no login to answer
    expectToken(await finish(cookie, samlResponse), 420, 'ssoLoginNotStarted');
    // even a login in progress for the very same request cannot use the assertion twice
    const database = ctx().app.services.database.db;
    const now = Date.now();
    const inResponseTo = /InResponseTo="([^"]+)"/.exec(decode(samlResponse))![1]!;
    await database
      .insertInto('sso_logins')
      .values({
        id: 'replay-login',
        provider_id: providerId,
        state: 's',
        nonce: 'n',
        code_verifier: 'v',
        request_id: inResponseTo,
        relay_state: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + 60_000).toISOString(),
      })
      .execute();
    expectToken(await finish('manifold_sso=replay-login', samlResponse), 420, 'samlResponseReplayed');
  });

  it('refuses an expired assertion, one for another audience, an unsigned one and one answering another request', async () => {
    const user = { nameId: `eve-${unique()}`, email: 'eve@example.com' };
    const expired = await browse(user, { issueInstant: new Date(Date.now() - 30 * 60_000), validMinutes: 10 });
    expectToken(await finish(expired.cookie, expired.samlResponse), 420, 'samlResponseInvalid');
    const audience = await browse(user, { audience: 'https://another-sp.example' });
    expectToken(await finish(audience.cookie, audience.samlResponse), 420, 'samlResponseInvalid');
    // the identity provider's signed answer with its signature taken out
    const unsigned = await browse(user);
    const stripped = decode(unsigned.samlResponse).replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '');
    expectToken(await finish(unsigned.cookie, encode(stripped)), 420, 'samlResponseInvalid');
    const mine = await browse(user);
    const other = await browse(user);
    expectToken(await finish(mine.cookie, other.samlResponse), 420, 'samlResponseInvalid');
  });

  it('refuses signature-wrapped responses', async () => {
    const victim = `admin-${unique()}`;
    // an evil unsigned assertion next to the genuinely signed one
    const first = await browse({ nameId: `mallory-${unique()}`, email: 'mallory@example.com' });
    const genuine = decode(first.samlResponse);
    const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(genuine)![0];
    const evil = assertion
      .replace(/ID="[^"]+"/, 'ID="_evil"')
      .replace(/<(?:ds:)?Signature[\s\S]*<\/(?:ds:)?Signature>/, '')
      .replace(/(<saml:NameID[^>]*>)[^<]+/, `$1${victim}`);
    expectToken(await finish(first.cookie, encode(genuine.replace(assertion, evil + assertion))), 420, 'samlResponseInvalid');

    // the signed assertion hidden in Extensions, the evil one where the reader looks
    const second = await browse({ nameId: `mallory-${unique()}`, email: 'mallory@example.com' });
    const signed = decode(second.samlResponse);
    const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const signature = /<(?:ds:)?Signature[\s\S]*<\/(?:ds:)?Signature>/.exec(signedAssertion)![0];
    const forged = signedAssertion
      .replace(/<(?:ds:)?Signature[\s\S]*<\/(?:ds:)?Signature>/, '')
      .replace(/(<saml:NameID[^>]*>)[^<]+/, `$1${victim}`)
      .replace(/(<saml:Issuer>[^<]*<\/saml:Issuer>)/, `$1${signature}`);
    const wrapped = signed.replace(signedAssertion, `<samlp:Extensions>${signedAssertion}</samlp:Extensions>${forged}`);
    expectToken(await finish(second.cookie, encode(wrapped)), 420, 'samlResponseInvalid');

    const victims = await ctx()
      .app.services.database.db.selectFrom('users')
      .select('id')
      .where('username', '=', victim)
      .execute();
    expect(victims).toEqual([]);
  });

  it('records each refusal with its reason in the audit trail', async () => {
    const rows = await ctx()
      .app.services.database.db.selectFrom('audit_events')
      .select(['details'])
      .where('event_type', '=', 'ssoLoginRefused')
      .orderBy('id')
      .execute();
    const reasons = rows.map((row) => (JSON.parse(row.details!) as { reason: string }).reason);
    expect(reasons).toEqual([
      'assertion replayed',
      expect.stringMatching(/subject confirmation/), // expired
      expect.stringMatching(/audience mismatch/),
      expect.stringMatching(/Invalid signature/), // unsigned
      expect.stringMatching(/InResponseTo/),
      expect.stringMatching(/multiple assertions/),
      expect.stringMatching(/Invalid signature/), // signed assertion moved into Extensions
    ]);
  });

  it('links an account set up for single sign-on once when its first logins race, and every one of them succeeds', async () => {
    const { profile } = await ctx().createUser({ useSso: true } as never);
    const user = { nameId: profile.username, email: profile.email };
    const rounds = [];
    for (let i = 0; i < 6; i += 1) rounds.push(await browse(user));
    const logins = await Promise.all(rounds.map(({ cookie, samlResponse }) => finish(cookie, samlResponse)));
    for (const login of logins) {
      expect(login.statusCode, login.body).toBe(200);
      expect(login.json<{ userProfile: { username: string } }>().userProfile.username).toBe(profile.username);
    }
    const links = await ctx()
      .app.services.database.db.selectFrom('external_identities')
      .innerJoin('users', 'users.id', 'external_identities.user_id')
      .select(['external_identities.subject', 'users.username'])
      .where('external_identities.subject', '=', profile.username)
      .execute();
    expect(links).toEqual([{ subject: profile.username, username: profile.username }]);
  });

  it('refuses an e-mail domain the provider does not allow', async () => {
    const { cookie, samlResponse } = await browse({ nameId: `out-${unique()}`, email: 'someone@elsewhere.example' });
    expectToken(await finish(cookie, samlResponse), 420, 'ssoUserNotAllowed');
  });

  it('hands the identity provider’s form post to the console login page in the URL fragment', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/ui/user/saml2/acs/${providerId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ SAMLResponse: 'PHNhbWw+', RelayState: '/orders' }).toString(),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${publicUrl}/login/saml/${providerId}#samlResponse=PHNhbWw%2B&RelayState=%2Forders`);
  });

  it('reads the whole NameID: a comment the signature does not cover cannot cut it down to another subject', async () => {
    const victim = `vic-${unique()}`;
    const first = await browse({ nameId: victim, email: `${victim}@example.com` });
    expect((await finish(first.cookie, first.samlResponse)).statusCode).toBe(200);
    // mallory is `{victim}.evil` at the provider; exclusive canonicalization leaves comments out
    // of what is signed, so one added after the signature still verifies
    const mallory = `${victim}.evil`;
    const signed = await browse({ nameId: mallory, email: `${mallory}@example.com` });
    const xml = decode(signed.samlResponse);
    const commented = xml.replace(new RegExp(`(<saml:NameID[^>]*>)${victim}\\.evil<`), `$1${victim}<!---->.evil<`);
    expect(commented).not.toBe(xml);
    const login = await finish(signed.cookie, encode(commented));
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json<{ userProfile: { username: string } }>().userProfile.username).toBe(mallory);
  });

  // last: it deletes the suite's provider
  it('ends the sessions its logins opened, refreshed ones included, when the provider is deleted', async () => {
    const name = `ended-${unique()}`;
    const { cookie, samlResponse } = await browse({ nameId: name, email: `${name}@example.com` });
    const login = await finish(cookie, samlResponse);
    expect(login.statusCode, login.body).toBe(200);
    const refreshed = await ctx().call('POST', '/ui/user/refresh', {
      token: login.json<{ sessionToken: string }>().sessionToken,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const session = refreshed.json<{ sessionToken: string }>().sessionToken;
    const other = await ctx().createUser();
    const admin = await ctx().adminToken();

    const deleted = await ctx().call('POST', '/ui/admin/sso/delete', { token: admin, body: { id: providerId } });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expectToken(await ctx().call('GET', '/ui/user/login', { token: session }), 401, 'invalidSessionToken');
    expect((await ctx().call('GET', '/ui/user/login', { token: other.token })).statusCode).toBe(200);
    expect((await ctx().call('GET', '/ui/user/login', { token: admin })).statusCode).toBe(200);
  });
});
