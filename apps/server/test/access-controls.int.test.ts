import { describe, expect, it } from 'vitest';
import { clientCredentialsToken } from './helpers/oauth-client.js';
import { multipartForm } from './helpers/multipart.js';
import { createPackage } from './helpers/packages-fixtures.js';
import { SoftwareAuthenticator } from './helpers/software-authenticator.js';
import { buildUserInput, describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const wired = '10.1.2.3';
const outside = '203.0.113.9';

/** A request from a given client address (the server's `request.ip`). */
function from(ctx: TestApp, address: string, method: 'GET' | 'POST', url: string, token: string, body?: unknown) {
  return ctx.app.inject({
    method,
    url,
    remoteAddress: address,
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { payload: body as object } : {}),
  });
}

async function uploadLabelled(ctx: TestApp, token: string, dsiId: string, classification: string, address = '127.0.0.1') {
  const { body, headers } = multipartForm({
    dsiId,
    isPublic: 'true',
    classification,
    file: { filename: 'drawing.stl', content: 'solid part', contentType: 'model/stl' },
  });
  return ctx.app.inject({
    method: 'POST',
    url: '/ui/package/files/upload',
    remoteAddress: address,
    headers: { ...headers, authorization: `Bearer ${token}` },
    payload: body,
  });
}

async function refusals(ctx: TestApp, constraint: string): Promise<{ actor: string | null; details: string | null }[]> {
  return ctx.app.services.database.db
    .selectFrom('audit_events')
    .select(['actor', 'details'])
    .where('event_type', '=', 'accessConstraintRefused')
    .where('subject', '=', constraint)
    .execute();
}

describeEachDatabase('access controls', (ctx) => {
  describe('access-control and access-role calls', () => {
    it('should require authentication and an administrator', async () => {
      expectToken(await ctx().call('GET', '/ui/access-control/list'), 401, 'invalidSessionToken');
      const { token } = await ctx().createUser();
      expectToken(await ctx().call('GET', '/ui/access-role/list', { token }), 403, 'actionNotAllowed');
      expectToken(
        await ctx().call('POST', '/ui/access-control/add', {
          token,
          body: { policyName: 'X', constraints: ['cui-download'], incomingIpAddresses: ['10.0.0.0/8'] },
        }),
        403,
        'actionNotAllowed',
      );
    });

    it('adds, lists and deletes policies, refusing bad ranges and duplicate names', async () => {
      const token = await ctx().adminToken();
      const add = (body: unknown) => ctx().call('POST', '/ui/access-control/add', { token, body });
      expectToken(
        await add({ policyName: 'Bad', constraints: ['fci-upload'], incomingIpAddresses: ['10.0.0.0/33', 'wifi.example'] }),
        420,
        'accessControlInvalid',
        'incomingIpAddresses',
      );
      expect((await add({ policyName: 'Bad', constraints: ['no-such'], incomingIpAddresses: ['10.0.0.0/8'] })).statusCode).toBe(
        400,
      );
      const created = await add({
        policyName: 'Mobile Device',
        constraints: ['fci-upload', 'fci-upload'],
        incomingIpAddresses: ['fd00::/8'],
      });
      expect(created.statusCode, created.body).toBe(200);
      expect(created.json()).toMatchObject({
        policyName: 'Mobile Device',
        constraints: ['fci-upload'],
        incomingIpAddresses: ['fd00::/8'],
      });
      expectToken(
        await add({ policyName: 'mobile device', constraints: ['fci-upload'], incomingIpAddresses: ['fd00::/8'] }),
        420,
        'accessControlNameTaken',
        'policyName',
      );
      const list = await ctx().call('GET', '/ui/access-control/list', { token });
      expect(list.json()).toMatchObject({ totalNumOfItems: 1, data: [{ policyName: 'Mobile Device' }] });
      const id = created.json<{ accessControlId: string }>().accessControlId;
      expect((await ctx().call('POST', '/ui/access-control/delete', { token, body: { accessControlId: id } })).statusCode).toBe(
        200,
      );
      expectToken(
        await ctx().call('POST', '/ui/access-control/delete', { token, body: { accessControlId: id } }),
        420,
        'accessControlNotPresent',
        'accessControlId',
      );
    });

    it('refuses a role code that does not grant its constraint and unknown members', async () => {
      const token = await ctx().adminToken();
      expectToken(
        await ctx().call('POST', '/ui/access-role/add', {
          token,
          body: { roleCode: 'audit-admin', constraintName: 'cui-download', roleMembers: ['admin'] },
        }),
        420,
        'accessRoleInvalid',
        'roleCode',
      );
      expectToken(
        await ctx().call('POST', '/ui/access-role/add', {
          token,
          body: { roleCode: 'user', constraintName: 'cui-download', roleMembers: ['nobody-here'] },
        }),
        420,
        'userNotPresent',
        'roleMembers',
      );
    });

    it('refuses a change that would shut the administrator out of security-config', async () => {
      const token = await ctx().adminToken();
      expectToken(
        await ctx().call('POST', '/ui/access-control/add', {
          token,
          body: { policyName: 'VPN', constraints: ['security-config'], incomingIpAddresses: ['10.8.0.0/16'] },
        }),
        420,
        'accessControlWouldLockOut',
      );
      const other = await ctx().createUser({ role: 'ADMIN' });
      expectToken(
        await ctx().call('POST', '/ui/access-role/add', {
          token,
          body: { roleCode: 'security-admin', constraintName: 'security-config', roleMembers: [other.profile.username] },
        }),
        420,
        'accessControlWouldLockOut',
      );
      expect((await ctx().call('GET', '/ui/access-control/list', { token })).json()).toMatchObject({ totalNumOfItems: 0 });
    });
  });

  describe('editing policies and roles', () => {
    /** An OAuth client of the administrator and its client-credentials access token. */
    const clientToken = async (admin: string, authorities: string) => {
      const clientId = `edit-client-${Math.random().toString(36).slice(2, 8)}`;
      const added = await ctx().call('POST', '/ui/client/add', {
        token: admin,
        body: {
          clientId,
          authorizedGrantTypes: 'client_credentials',
          webServerRedirectUri: 'https://mes.example/callback',
          authorities,
          accessTokenValidity: 600,
        },
      });
      expect(added.statusCode, added.body).toBe(200);
      return clientCredentialsToken(ctx(), clientId, added.json<{ clientSecret: string }>().clientSecret);
    };
    /** The suite's later tests start without policies or roles. */
    const removeAll = async (token: string) => {
      const policies = (await ctx().call('GET', '/ui/access-control/list', { token })).json<{
        data: { accessControlId: string }[];
      }>();
      for (const { accessControlId } of policies.data) {
        await ctx().call('POST', '/ui/access-control/delete', { token, body: { accessControlId } });
      }
      const roles = (await ctx().call('GET', '/ui/access-role/list', { token })).json<{ data: { accessRoleId: string }[] }>();
      for (const { accessRoleId } of roles.data)
        await ctx().call('POST', '/ui/access-role/delete', { token, body: { accessRoleId } });
    };
    const edits = (kind: string) =>
      ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select(['actor', 'subject', 'details'])
        .where('event_type', '=', kind)
        .orderBy('id')
        .execute();

    it('should require authentication and an administrator, from a session or an ADMIN token', async () => {
      const body = {
        accessControlId: crypto.randomUUID(),
        policyName: 'X',
        constraints: ['cui-download'],
        incomingIpAddresses: ['10.0.0.0/8'],
      };
      expectToken(await ctx().call('POST', '/ui/access-control/edit', { body }), 401, 'invalidSessionToken');
      const { token } = await ctx().createUser();
      expectToken(await ctx().call('POST', '/ui/access-control/edit', { token, body }), 403, 'actionNotAllowed');
      const roleBody = {
        accessRoleId: crypto.randomUUID(),
        roleCode: 'user',
        constraintName: 'cui-download',
        roleMembers: ['admin'],
      };
      expectToken(await ctx().call('POST', '/ui/access-role/edit', { token, body: roleBody }), 403, 'actionNotAllowed');
      const admin = await ctx().adminToken();
      const userClient = await clientToken(admin, 'ROLE_USER');
      expectToken(
        await ctx().call('POST', '/ui/access-role/edit', { token: userClient, body: roleBody }),
        403,
        'actionNotAllowed',
      );
      // an ADMIN client of an administrator may (nobody holds a key here, so no escalation is asked)
      const adminClient = await clientToken(admin, 'ADMIN');
      expectToken(
        await ctx().call('POST', '/ui/access-control/edit', { token: adminClient, body }),
        420,
        'accessControlNotPresent',
        'accessControlId',
      );
      expectToken(
        await ctx().call('POST', '/ui/access-role/edit', { token: adminClient, body: roleBody }),
        420,
        'accessRoleNotPresent',
        'accessRoleId',
      );
    });

    it('changes a policy, enforced at once, with the checks of adding and an audit record', async () => {
      const token = await ctx().adminToken();
      const created = await ctx().call('POST', '/ui/access-control/add', {
        token,
        body: { policyName: 'Internal Wired', constraints: ['audit-access'], incomingIpAddresses: ['10.1.0.0/16'] },
      });
      const id = created.json<{ accessControlId: string }>().accessControlId;
      await ctx().call('POST', '/ui/access-control/add', {
        token,
        body: { policyName: 'VPN', constraints: ['fci-upload'], incomingIpAddresses: ['10.8.0.0/16'] },
      });
      expect((await from(ctx(), wired, 'GET', '/ui/audit/list', token)).statusCode).toBe(200);
      expectToken(await from(ctx(), outside, 'GET', '/ui/audit/list', token), 403, 'accessConstraintFailed');

      const edit = (body: Record<string, unknown>) =>
        ctx().call('POST', '/ui/access-control/edit', {
          token,
          body: {
            accessControlId: id,
            policyName: 'External',
            constraints: ['audit-access'],
            incomingIpAddresses: ['203.0.113.0/24'],
            ...body,
          },
        });
      expectToken(
        await edit({ incomingIpAddresses: ['203.0.113.0/24', 'not-a-range'] }),
        420,
        'accessControlInvalid',
        'incomingIpAddresses',
      );
      expectToken(await edit({ policyName: 'vpn' }), 420, 'accessControlNameTaken', 'policyName');
      // the caller's own address (127.0.0.1) left out of security-config: refused, nothing changes
      expectToken(await edit({ constraints: ['audit-access', 'security-config'] }), 420, 'accessControlWouldLockOut');
      expect((await from(ctx(), wired, 'GET', '/ui/audit/list', token)).statusCode).toBe(200);

      const changed = await edit({});
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toEqual({
        accessControlId: id,
        policyName: 'External',
        constraints: ['audit-access'],
        incomingIpAddresses: ['203.0.113.0/24'],
      });
      // its own name in another case is not "taken"
      expect((await edit({ policyName: 'EXTERNAL' })).statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/access-control/list', { token })).json()).toMatchObject({
        totalNumOfItems: 2,
        data: [{ accessControlId: id, policyName: 'EXTERNAL' }, { policyName: 'VPN' }],
      });
      expect((await from(ctx(), outside, 'GET', '/ui/audit/list', token)).statusCode).toBe(200);
      expectToken(await from(ctx(), wired, 'GET', '/ui/audit/list', token), 403, 'accessConstraintFailed');

      const audit = await edits('accessControlEdited');
      expect(audit).toHaveLength(2);
      expect(audit[0]).toMatchObject({ actor: 'admin', subject: 'External' });
      expect(JSON.parse(audit[0]!.details!)).toEqual({
        constraints: ['audit-access'],
        incomingIpAddresses: ['203.0.113.0/24'],
        previousName: 'Internal Wired',
      });
      await removeAll(token);
    });

    it('changes a role’s members and code, enforced at once, with the checks of adding and an audit record', async () => {
      const token = await ctx().adminToken();
      const other = await ctx().createUser({ role: 'ADMIN' });
      const created = await ctx().call('POST', '/ui/access-role/add', {
        token,
        body: { roleCode: 'audit-admin', constraintName: 'audit-access', roleMembers: ['admin'] },
      });
      const id = created.json<{ accessRoleId: string }>().accessRoleId;
      expectToken(await ctx().call('GET', '/ui/audit/list', { token: other.token }), 403, 'accessConstraintFailed');

      const edit = (body: Record<string, unknown>) =>
        ctx().call('POST', '/ui/access-role/edit', {
          token,
          body: {
            accessRoleId: id,
            roleCode: 'audit-admin',
            constraintName: 'audit-access',
            roleMembers: ['admin', other.profile.username],
            ...body,
          },
        });
      expectToken(await edit({ roleCode: 'user' }), 420, 'accessRoleInvalid', 'roleCode');
      expectToken(await edit({ roleMembers: ['admin', 'nobody-here'] }), 420, 'userNotPresent', 'roleMembers');
      expectToken(
        await edit({ roleCode: 'security-admin', constraintName: 'security-config', roleMembers: [other.profile.username] }),
        420,
        'accessControlWouldLockOut',
      );
      const changed = await edit({});
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toEqual({
        accessRoleId: id,
        roleCode: 'audit-admin',
        constraintName: 'audit-access',
        roleMembers: ['admin', other.profile.username].sort(),
      });
      expect((await ctx().call('GET', '/ui/audit/list', { token: other.token })).statusCode).toBe(200);

      // the member list given replaces the stored one
      const narrowed = await edit({ roleMembers: [other.profile.username] });
      expect(narrowed.json()).toMatchObject({ roleMembers: [other.profile.username] });
      expectToken(await ctx().call('GET', '/ui/audit/list', { token }), 403, 'accessConstraintFailed');
      expect((await ctx().call('GET', '/ui/access-role/list', { token })).json()).toMatchObject({
        totalNumOfItems: 1,
        data: [{ accessRoleId: id, roleMembers: [other.profile.username] }],
      });

      const audit = await edits('accessRoleEdited');
      expect(audit.map((row) => JSON.parse(row.details!))).toEqual([
        { constraintName: 'audit-access', roleMembers: ['admin', other.profile.username] },
        { constraintName: 'audit-access', roleMembers: [other.profile.username] },
      ]);
      await removeAll(token);
    });
  });

  describe('CUI downloads', () => {
    it('refuses an address outside the policy and a user without the constraint, and lets an allowed one through', async () => {
      const admin = await ctx().adminToken();
      const reader = await ctx().createUser();
      const stranger = await ctx().createUser();
      const pkg = await createPackage(ctx());
      const uploaded = await uploadLabelled(ctx(), admin, pkg.dsiId, 'CUI');
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      expect(uploaded.json()).toMatchObject({ classification: 'CUI' });
      const url = `/ui/package/files/download?fileId=${uploaded.json<{ fileId: string }>().fileId}`;

      const policy = await ctx().call('POST', '/ui/access-control/add', {
        token: admin,
        body: { policyName: 'Internal Wired', constraints: ['cui-download', 'cui-upload'], incomingIpAddresses: ['10.1.0.0/16'] },
      });
      expect(policy.statusCode, policy.body).toBe(200);

      const far = expectToken(await from(ctx(), outside, 'GET', url, reader.token), 403, 'accessConstraintFailed');
      expect(far.errorDescription).toContain('cui-download');
      expect(far.errorDescription).toContain('Internal Wired');
      expect((await from(ctx(), wired, 'GET', url, reader.token)).statusCode).toBe(200);

      const role = await ctx().call('POST', '/ui/access-role/add', {
        token: admin,
        body: { roleCode: 'user', constraintName: 'cui-download', roleMembers: [reader.profile.username] },
      });
      expect(role.statusCode, role.body).toBe(200);
      expect(role.json()).toMatchObject({
        roleCode: 'user',
        constraintName: 'cui-download',
        roleMembers: [reader.profile.username],
      });

      const denied = expectToken(await from(ctx(), wired, 'GET', url, stranger.token), 403, 'accessConstraintFailed');
      expect(denied.errorDescription).toContain('cui-download');
      const allowed = await from(ctx(), wired, 'GET', url, reader.token);
      expect(allowed.statusCode, allowed.body).toBe(200);
      expect(allowed.body).toBe('solid part');

      const audited = await refusals(ctx(), 'cui-download');
      expect(audited.map((row) => [row.actor, JSON.parse(row.details ?? '{}').reason])).toEqual([
        [reader.profile.username, 'network'],
        [stranger.profile.username, 'membership'],
      ]);

      // an upload labelled CUI is gated by cui-upload: from outside refused before anything is stored
      expectToken(await uploadLabelled(ctx(), admin, pkg.dsiId, 'CUI', outside), 403, 'accessConstraintFailed');
      expect((await uploadLabelled(ctx(), admin, pkg.dsiId, 'CUI', wired)).statusCode).toBe(200);
      // unlabelled files are not gated
      expect((await uploadLabelled(ctx(), admin, pkg.dsiId, '', outside)).json()).toMatchObject({ classification: null });
      expect((await uploadLabelled(ctx(), admin, pkg.dsiId, 'SECRET')).statusCode).toBe(400);

      // leave no policy behind for the next tests
      for (const page of [await ctx().call('GET', '/ui/access-role/list', { token: admin })]) {
        for (const item of page.json<{ data: { accessRoleId: string }[] }>().data)
          await ctx().call('POST', '/ui/access-role/delete', { token: admin, body: { accessRoleId: item.accessRoleId } });
      }
      await ctx().call('POST', '/ui/access-control/delete', {
        token: admin,
        body: { accessControlId: policy.json<{ accessControlId: string }>().accessControlId },
      });
    });

    it('asks a -webauth role member for an escalated session', async () => {
      const admin = await ctx().adminToken();
      const reader = await ctx().createUser();
      const pkg = await createPackage(ctx());
      const uploaded = await uploadLabelled(ctx(), admin, pkg.dsiId, 'FCI');
      const url = `/ui/package/files/download?fileId=${uploaded.json<{ fileId: string }>().fileId}`;
      const role = await ctx().call('POST', '/ui/access-role/add', {
        token: admin,
        body: { roleCode: 'user-webauth', constraintName: 'fci-download', roleMembers: [reader.profile.username] },
      });
      expect(role.statusCode, role.body).toBe(200);
      const refused = expectToken(await ctx().call('GET', url, { token: reader.token }), 403, 'escalationRequired');
      expect(refused.errorDescription).toContain('fci-download');
      expect(refused.errorDescription).toContain('escalated');

      const origin = ctx().config.publicUrl;
      const key = new SoftwareAuthenticator(new URL(origin).hostname, origin);
      const options = (kind: string) =>
        ctx()
          .call('POST', `/ui/authenticators/${kind}-options/generate`, { token: reader.token })
          .then((r) => r.json<{ challenge: string }>().challenge);
      expect(
        (
          await ctx().call('POST', '/ui/authenticators/add', {
            token: reader.token,
            body: { name: 'k', credential: key.register(await options('attestation')) },
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await ctx().call('POST', '/ui/authenticators/escalate-login', {
            token: reader.token,
            body: { credential: key.assert(await options('assertion')) },
          })
        ).statusCode,
      ).toBe(200);
      expect((await ctx().call('GET', url, { token: reader.token })).statusCode).toBe(200);
      await ctx().call('POST', '/ui/access-role/delete', {
        token: admin,
        body: { accessRoleId: role.json<{ accessRoleId: string }>().accessRoleId },
      });
    });
  });

  describe('route constraints', () => {
    it('gates the audit list with audit-access and user management with user-management', async () => {
      const admin = await ctx().adminToken();
      // refusals earlier tests of this suite recorded
      const auditBefore = (await refusals(ctx(), 'audit-access')).length;
      const usersBefore = (await refusals(ctx(), 'user-management')).length;
      const auditor = await ctx().createUser({ role: 'ADMIN' });
      const role = await ctx().call('POST', '/ui/access-role/add', {
        token: admin,
        body: { roleCode: 'audit-admin', constraintName: 'audit-access', roleMembers: [auditor.profile.username] },
      });
      expect(role.statusCode, role.body).toBe(200);
      expect(
        expectToken(await ctx().call('GET', '/ui/audit/list', { token: admin }), 403, 'accessConstraintFailed').errorDescription,
      ).toContain('audit-access');
      expect((await ctx().call('GET', '/ui/audit/list', { token: auditor.token })).statusCode).toBe(200);

      const policy = await ctx().call('POST', '/ui/access-control/add', {
        token: admin,
        body: { policyName: 'Internal WiFi', constraints: ['user-management'], incomingIpAddresses: ['10.1.0.0/16'] },
      });
      expect(policy.statusCode, policy.body).toBe(200);
      const body = {
        username: `u${Date.now()}`,
        password: 'Password-123',
        firstName: 'A',
        lastName: 'B',
        email: 'a@example.com',
        role: 'USER',
        timeZone: 'Europe/London',
        language: 'en_US',
      };
      expectToken(await from(ctx(), outside, 'POST', '/ui/user/add', admin, body), 403, 'accessConstraintFailed');
      expect((await from(ctx(), wired, 'POST', '/ui/user/add', admin, body)).statusCode).toBe(200);
      const edit = { username: body.username, firstName: 'Changed' };
      expectToken(await from(ctx(), outside, 'POST', '/ui/user/edit', admin, edit), 403, 'accessConstraintFailed');
      expect((await from(ctx(), wired, 'POST', '/ui/user/edit', admin, edit)).statusCode).toBe(200);
      // one's own profile is no user management
      expect(
        (await from(ctx(), outside, 'POST', '/ui/user/edit', admin, { username: 'admin', firstName: 'Ada' })).statusCode,
      ).toBe(200);
      expect((await refusals(ctx(), 'audit-access')).length).toBe(auditBefore + 1);
      expect((await refusals(ctx(), 'user-management')).length).toBe(usersBefore + 2);
    });
  });
});

describeEachDatabase('the last holder of a constraint', (ctx) => {
  const roleMembers = async (token: string, constraintName: string): Promise<string[]> => {
    const roles = await ctx().call('GET', '/ui/access-role/list?pageNum=1&numberOfItems=100', { token });
    return roles
      .json<{ data: { constraintName: string; roleMembers: string[] }[] }>()
      .data.filter((role) => role.constraintName === constraintName)
      .flatMap((role) => role.roleMembers);
  };

  it('cannot be deleted or demoted: nobody would hold the constraint (accessControlWouldLockOut)', async () => {
    const admin = await ctx().adminToken();
    const sec = await ctx().createUser({ role: 'ADMIN' });
    const added = await ctx().call('POST', '/ui/access-role/add', {
      token: admin,
      body: { roleCode: 'security-admin', constraintName: 'security-config', roleMembers: ['admin', sec.profile.username] },
    });
    expect(added.statusCode, added.body).toBe(200);
    const roleId = added.json<{ accessRoleId: string }>().accessRoleId;
    const securityAdmins = async (roleMembers: string[]) => {
      const edited = await ctx().call('POST', '/ui/access-role/edit', {
        token: sec.token,
        body: { accessRoleId: roleId, roleCode: 'security-admin', constraintName: 'security-config', roleMembers },
      });
      expect(edited.statusCode, edited.body).toBe(200);
    };
    // sec keeps security-config to themselves
    await securityAdmins([sec.profile.username]);

    expectToken(
      await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: sec.profile.username } }),
      420,
      'accessControlWouldLockOut',
    );
    expectToken(
      await ctx().call('POST', '/ui/user/edit', { token: admin, body: { username: sec.profile.username, role: 'USER' } }),
      420,
      'accessControlWouldLockOut',
    );
    expect(await roleMembers(sec.token, 'security-config')).toEqual([sec.profile.username]);
    expect((await ctx().call('GET', '/ui/user/login', { token: sec.token })).json()).toMatchObject({
      userProfile: { role: 'ADMIN' },
    });

    // a constraint USERs hold: its only member cannot be deleted either
    const reader = await ctx().createUser();
    const cui = await ctx().call('POST', '/ui/access-role/add', {
      token: sec.token,
      body: { roleCode: 'user', constraintName: 'cui-download', roleMembers: [reader.profile.username] },
    });
    expect(cui.statusCode, cui.body).toBe(200);
    expectToken(
      await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: reader.profile.username } }),
      420,
      'accessControlWouldLockOut',
    );
    // a USER member is no holder of a constraint that gates administrators' calls only
    const plain = await ctx().createUser();
    await securityAdmins([sec.profile.username, plain.profile.username]);
    expectToken(
      await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: sec.profile.username } }),
      420,
      'accessControlWouldLockOut',
    );

    // with another holder the same calls go through
    await securityAdmins([sec.profile.username, 'admin']);
    const demoted = await ctx().call('POST', '/ui/user/edit', {
      token: admin,
      body: { username: sec.profile.username, role: 'USER' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    const deleted = await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: sec.profile.username } });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await roleMembers(admin, 'security-config')).toEqual(['admin']);
    // a member of a constraint others also hold: deleted
    const second = await ctx().createUser();
    await ctx().call('POST', '/ui/access-role/add', {
      token: admin,
      body: { roleCode: 'user-webauth', constraintName: 'cui-download', roleMembers: [second.profile.username] },
    });
    expect(
      (await ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: reader.profile.username } })).statusCode,
    ).toBe(200);
  });

  it('survives requests racing to remove the last two holders: one of them is refused', async () => {
    const admin = await ctx().adminToken();
    const db = ctx().app.services.database.db;
    for (let round = 0; round < 6; round += 1) {
      // administrators holding audit-access (one deleted, one demoted), or users holding fci-upload (both deleted)
      const adminOnly = round % 2 === 0;
      const x = await ctx().createUser({ role: adminOnly ? 'ADMIN' : 'USER' });
      const y = await ctx().createUser({ role: adminOnly ? 'ADMIN' : 'USER' });
      const constraintName = adminOnly ? 'audit-access' : 'fci-upload';
      const role = await ctx().call('POST', '/ui/access-role/add', {
        token: admin,
        body: {
          roleCode: adminOnly ? 'audit-admin' : 'user',
          constraintName,
          roleMembers: [x.profile.username, y.profile.username],
        },
      });
      expect(role.statusCode, role.body).toBe(200);
      const [first, second] = await Promise.all([
        ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: x.profile.username } }),
        adminOnly
          ? ctx().call('POST', '/ui/user/edit', { token: admin, body: { username: y.profile.username, role: 'USER' } })
          : ctx().call('POST', '/ui/user/delete', { token: admin, body: { username: y.profile.username } }),
      ]);
      expect([first.statusCode, second.statusCode].sort(), `${first.body} ${second.body}`).toEqual([200, 420]);
      const loser = first.statusCode === 420 ? first : second;
      expect(loser.json().errorToken).toBe('accessControlWouldLockOut');
      const holders = await db
        .selectFrom('access_role_members')
        .innerJoin('users', 'users.id', 'access_role_members.user_id')
        .select(['users.username', 'users.role'])
        .where('access_role_members.role_id', '=', role.json<{ accessRoleId: string }>().accessRoleId)
        .execute();
      expect(holders.filter((holder) => !adminOnly || holder.role === 'ADMIN')).toHaveLength(1);
      // clean up for the next round: the role goes, then its members may
      const gone = await ctx().call('POST', '/ui/access-role/delete', {
        token: admin,
        body: { accessRoleId: role.json<{ accessRoleId: string }>().accessRoleId },
      });
      expect(gone.statusCode, gone.body).toBe(200);
    }
  });
});

describeEachDatabase(
  'access controls behind a reverse proxy (TRUST_PROXY)',
  (ctx) => {
    const proxy = '127.0.0.1';
    /** A request through the reverse proxy: it appends the address it saw to whatever `X-Forwarded-For` the client sent. */
    const through = (forwardedFor: string, token: string, body: unknown) =>
      ctx().app.inject({
        method: 'POST',
        url: '/ui/user/add',
        remoteAddress: proxy,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor },
        payload: body as object,
      });

    it('takes the address the proxy saw, never one the client wrote into X-Forwarded-For', async () => {
      const admin = await ctx().adminToken();
      const policy = await ctx().call('POST', '/ui/access-control/add', {
        token: admin,
        body: { policyName: 'Office', constraints: ['user-management'], incomingIpAddresses: ['10.1.0.0/16'] },
      });
      expect(policy.statusCode, policy.body).toBe(200);
      // a client outside writes an office address in front of its own
      const spoofed = expectToken(await through(`${wired}, ${outside}`, admin, buildUserInput()), 403, 'accessConstraintFailed');
      expect(spoofed.errorDescription).toContain('user-management');
      // a client in the office, as the proxy saw it
      const inside = await through(wired, admin, buildUserInput());
      expect(inside.statusCode, inside.body).toBe(200);
      expect((await through(`${outside}, ${wired}`, admin, buildUserInput())).statusCode).toBe(200);
    });
  },
  { TRUST_PROXY: 'true' },
);
