import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminPassword, buildUserInput, describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';

describeEachDatabase('users', (ctx) => {
  describe('GET /ui/user/list', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/user/list')).statusCode).toBe(401);
    });

    it('pages in the database, for USER and ADMIN alike', async () => {
      const { token } = await ctx().createUser();
      await ctx().createUser();
      await ctx().createUser();
      const first = await ctx().call('GET', '/ui/user/list?pageNum=1&numberOfItems=2', { token });
      expect(first.statusCode).toBe(200);
      const body = first.json();
      expect(body.data).toHaveLength(2);
      const users = await ctx().app.services.database.db.selectFrom('users').select('id').execute();
      expect(body.totalNumOfItems).toBe(users.length);
      expect(body.totalNumOfPages).toBe(Math.ceil(users.length / 2));
      const last = await ctx().call('GET', `/ui/user/list?pageNum=${body.totalNumOfPages}&numberOfItems=2`, { token });
      expect(last.json().data).toHaveLength(users.length - 2 * (body.totalNumOfPages - 1));
      expect(JSON.stringify(body)).not.toMatch(/password|argon2/i);
    });

    it('defaults to 10 a page and filters by a search term', async () => {
      const { profile } = await ctx().createUser({ firstName: 'Grace_100%' });
      const token = await ctx().adminToken();
      const all = await ctx().call('GET', '/ui/user/list', { token });
      expect(all.json().numberOfItems).toBe(10);
      const found = await ctx().call('GET', `/ui/user/list?search=${encodeURIComponent('grace_100%')}`, { token });
      expect(found.json().data.map((u: { username: string }) => u.username)).toEqual([profile.username]);
      const wildcard = await ctx().call('GET', `/ui/user/list?search=${encodeURIComponent('ce_1')}`, { token });
      expect(wildcard.json().data.map((u: { username: string }) => u.username)).toEqual([profile.username]);
    });

    it('finds a user by a part of the username as typed, whatever its case', async () => {
      // the name, the e-mail address and the company hold nothing of the username: only the username can match
      const username = `Mimi.Marmot${Math.random().toString(36).slice(2, 6)}`;
      await ctx().createUser({ username, firstName: 'Ada', lastName: 'Byron', email: 'ada@example.com' });
      const token = await ctx().adminToken();
      for (const term of ['mimi.mar', 'MIMI.MARMOT', 'Marmot']) {
        const found = await ctx().call('GET', `/ui/user/list?search=${encodeURIComponent(term)}`, { token });
        expect(found.statusCode).toBe(200);
        expect(
          found.json().data.map((u: { username: string }) => u.username),
          term,
        ).toEqual([username]);
      }
    });

    it('answers 400 for a page number that is not a number', async () => {
      const response = await ctx().call('GET', '/ui/user/list?pageNum=abc', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(400);
    });
  });

  describe('the first administrator', () => {
    it('is created with the address <username>@localhost as typed, not its identity key', async () => {
      const token = await ctx().adminToken();
      const profile = (await ctx().call('GET', '/ui/user/login', { token })).json().userProfile;
      expect(profile).toMatchObject({ username: 'admin', email: 'admin@localhost', role: 'ADMIN' });
    });
  });

  describe('GET /ui/user/roles', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/user/roles')).statusCode).toBe(401);
    });
    it('lists both roles', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('GET', '/ui/user/roles', { token })).json()).toEqual({ data: ['ADMIN', 'USER'] });
    });
  });

  describe('POST /ui/user/add', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/user/add', { body: buildUserInput() })).statusCode).toBe(401);
    });

    it('is for ADMIN only (403 for a USER)', async () => {
      const { token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/add', { token, body: buildUserInput() });
      expect(response.statusCode).toBe(403);
      expect(response.json().errorToken).toBe('actionNotAllowed');
    });

    it('adds a user with an argon2id hash and writes an audit record', async () => {
      const input = buildUserInput();
      const response = await ctx().call('POST', '/ui/user/add', { token: await ctx().adminToken(), body: input });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ username: input.username, role: 'USER', email: input.email, useSso: false });
      const db = ctx().app.services.database.db;
      const row = await db
        .selectFrom('users')
        .select('password_hash')
        .where('username', '=', input.username)
        .executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      const audit = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('event_type', '=', 'userAdded')
        .where('subject', '=', input.username)
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]!.actor).toBe('admin');
      await ctx().login(input.username, input.password);
    });

    it('reports every missing field at once (418)', async () => {
      const response = await ctx().call('POST', '/ui/user/add', { token: await ctx().adminToken(), body: {} });
      expect(expectTokens(response).map((error) => error.errorToken)).toEqual([
        'usernameEmpty',
        'userFirstNameEmpty',
        'userLastNameEmpty',
        'userEmailEmpty',
        'userRoleEmpty',
        'userTimeZoneEmpty',
        'userLanguageUndefined',
        'userHasNoPassword',
      ]);
    });

    it('refuses a malformed email, an unknown time zone, an unlisted language and an unknown role', async () => {
      const response = await ctx().call('POST', '/ui/user/add', {
        token: await ctx().adminToken(),
        body: buildUserInput({ email: 'not-an-email', timeZone: 'Mars/Olympus', language: 'xx_XX', role: 'ROOT' }),
      });
      expect(response.statusCode).toBe(418);
      expect(response.json().data).toEqual([
        expect.objectContaining({ errorToken: 'userEmailInvalid', field: 'email' }),
        expect.objectContaining({ errorToken: 'userRoleEmpty', field: 'role' }),
        expect.objectContaining({ errorToken: 'userTimeZoneEmpty', field: 'timeZone' }),
        expect.objectContaining({ errorToken: 'userLanguageUndefined', field: 'language' }),
      ]);
    });

    it('answers one problem as 420', async () => {
      const response = await ctx().call('POST', '/ui/user/add', {
        token: await ctx().adminToken(),
        body: buildUserInput({ lastName: '   ' }),
      });
      expect(response.statusCode).toBe(420);
      expect(response.json()).toEqual({
        errorToken: 'userLastNameEmpty',
        errorDescription: 'Last name is required',
        field: 'lastName',
      });
    });

    it('refuses a taken username, whatever its case (usernameTaken)', async () => {
      const { profile } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/add', {
        token: await ctx().adminToken(),
        body: buildUserInput({ username: profile.username.toUpperCase() }),
      });
      expect(response.statusCode).toBe(420);
      expect(response.json().errorToken).toBe('usernameTaken');
    });

    it('refuses a short password', async () => {
      const response = await ctx().call('POST', '/ui/user/add', {
        token: await ctx().adminToken(),
        body: buildUserInput({ password: 'short' }),
      });
      expect(response.json().errorToken).toBe('passwordTooShort');
    });

    it('accepts an SSO user without a password, who then cannot log in with one', async () => {
      const input = buildUserInput({ useSso: true, password: undefined });
      const response = await ctx().call('POST', '/ui/user/add', { token: await ctx().adminToken(), body: input });
      expect(response.statusCode).toBe(200);
      const login = await ctx().call('POST', '/ui/user/login', {
        body: { username: input.username, password: 'anything-at-all' },
      });
      expect(login.json().errorToken).toBe('passwordIncorrect');
    });
  });

  describe('POST /ui/user/edit', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/user/edit', { body: { username: 'admin' } })).statusCode).toBe(401);
    });

    it('lets users edit their own profile', async () => {
      const { profile, token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/edit', {
        token,
        body: { username: profile.username, firstName: 'Grace', timeZone: 'Asia/Tokyo', language: 'zh_CN' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        firstName: 'Grace',
        lastName: 'Lovelace',
        timeZone: 'Asia/Tokyo',
        language: 'zh_CN',
      });
    });

    it('refuses a USER editing someone else (userNotAuthorizedToEdit)', async () => {
      const { token } = await ctx().createUser();
      const { profile: other } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/edit', { token, body: { username: other.username, firstName: 'X' } });
      expect(response.statusCode).toBe(420);
      expect(response.json().errorToken).toBe('userNotAuthorizedToEdit');
    });

    it('refuses a USER promoting themselves (userNotAuthorizedToPromoteRole)', async () => {
      const { profile, token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/edit', { token, body: { username: profile.username, role: 'ADMIN' } });
      expect(response.json().errorToken).toBe('userNotAuthorizedToPromoteRole');
      const row = await ctx()
        .app.services.database.db.selectFrom('users')
        .select('role')
        .where('username', '=', profile.username)
        .executeTakeFirstOrThrow();
      expect(row.role).toBe('USER');
    });

    it('answers userNotPresent and usernameEmpty', async () => {
      const token = await ctx().adminToken();
      expect((await ctx().call('POST', '/ui/user/edit', { token, body: { username: 'no-such-user' } })).json().errorToken).toBe(
        'userNotPresent',
      );
      expect((await ctx().call('POST', '/ui/user/edit', { token, body: {} })).json().errorToken).toBe('usernameEmpty');
    });

    it('validates the fields it is given', async () => {
      const { profile, token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/edit', {
        token,
        body: { username: profile.username, firstName: '', email: 'x' },
      });
      expect(expectTokens(response).map((error) => error.errorToken)).toEqual(['userFirstNameEmpty', 'userEmailInvalid']);
    });

    it('needs the current password to change your own, and then ends your other sessions', async () => {
      const { profile, password, token } = await ctx().createUser();
      const other = await ctx().login(profile.username, password);
      const missing = await ctx().call('POST', '/ui/user/edit', {
        token,
        body: { username: profile.username, password: 'New-password-1' },
      });
      expect(missing.json().errorToken).toBe('currentPasswordRequired');
      const wrong = await ctx().call('POST', '/ui/user/edit', {
        token,
        body: { username: profile.username, password: 'New-password-1', currentPassword: 'nope' },
      });
      expect(wrong.json().errorToken).toBe('passwordIncorrect');
      const ok = await ctx().call('POST', '/ui/user/edit', {
        token,
        body: { username: profile.username, password: 'New-password-1', currentPassword: password },
      });
      expect(ok.statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token: other })).statusCode).toBe(401);
      await ctx().login(profile.username, 'New-password-1');
    });

    it('needs the current password to change your own e-mail or turn your single sign-on on, not to save them unchanged', async () => {
      const { profile, password, token } = await ctx().createUser();
      const stored = () =>
        ctx()
          .app.services.database.db.selectFrom('users')
          .select(['email', 'use_sso'])
          .where('username', '=', profile.username)
          .executeTakeFirstOrThrow()
          .then((row) => ({ email: row.email, use_sso: Number(row.use_sso) }));
      const edit = (body: Record<string, unknown>) =>
        ctx().call('POST', '/ui/user/edit', { token, body: { username: profile.username, ...body } });
      const newEmail = `moved-${profile.username}@example.org`;
      for (const change of [{ email: newEmail }, { useSso: true }, { email: `  ${newEmail} `, useSso: true }]) {
        expectToken(await edit(change), 420, 'currentPasswordRequired', 'currentPassword');
        const wrongCurrent = await edit({ ...change, currentPassword: 'not-the-password' });
        expectToken(wrongCurrent, 420, 'passwordIncorrect', 'currentPassword');
        expect(wrongCurrent.json()).toMatchObject({ errorDescription: 'The current password is incorrect' });
      }
      expect(await stored()).toEqual({ email: profile.email, use_sso: 0 });
      // what the profile form sends when only a name changes: the same e-mail, single sign-on off
      const unchanged = await edit({ firstName: 'Same', email: profile.email, useSso: false });
      expect(unchanged.statusCode, unchanged.body).toBe(200);
      const moved = await edit({ email: newEmail, useSso: true, currentPassword: password });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json()).toMatchObject({ email: newEmail, useSso: true });
      expect(await stored()).toEqual({ email: newEmail, use_sso: 1 });
      // turning it off again hands nothing over
      expect((await edit({ useSso: false })).statusCode).toBe(200);
    });

    it('ends every session of a user whose password an admin changes', async () => {
      const { profile, token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/edit', {
        token: await ctx().adminToken(),
        body: { username: profile.username, password: 'Reset-password-1' },
      });
      expect(response.statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(401);
    });

    it('ends the sessions of a user whose role changes, and the new role applies', async () => {
      const { profile, password, token } = await ctx().createUser();
      await ctx().call('POST', '/ui/user/edit', {
        token: await ctx().adminToken(),
        body: { username: profile.username, role: 'ADMIN' },
      });
      expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(401);
      const adminToken = await ctx().login(profile.username, password);
      expect((await ctx().call('GET', '/ui/admin/database', { token: adminToken })).statusCode).toBe(200);
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .selectAll()
        .where('event_type', '=', 'userRoleChanged')
        .where('subject', '=', profile.username)
        .execute();
      expect(audit).toHaveLength(1);
    });
  });

  describe('POST /ui/user/delete', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/user/delete', { body: { username: 'x' } })).statusCode).toBe(401);
    });

    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('POST', '/ui/user/delete', { token, body: { username: 'admin' } })).statusCode).toBe(403);
    });

    it('deletes the user and ends their sessions at once', async () => {
      const { profile, token } = await ctx().createUser();
      const response = await ctx().call('POST', '/ui/user/delete', {
        token: await ctx().adminToken(),
        body: { username: profile.username },
      });
      expect(response.statusCode).toBe(200);
      expect((await ctx().call('GET', '/ui/user/login', { token })).statusCode).toBe(401);
      const again = await ctx().call('POST', '/ui/user/delete', {
        token: await ctx().adminToken(),
        body: { username: profile.username },
      });
      expect(again.json().errorToken).toBe('userNotPresent');
      expect((await ctx().call('POST', '/ui/user/delete', { token: await ctx().adminToken(), body: {} })).json().errorToken).toBe(
        'usernameEmpty',
      );
    });
  });
});

describeEachDatabase('the last administrator', (ctx) => {
  it('cannot be deleted or demoted (userOnlyAdminInSystem)', async () => {
    const token = await ctx().adminToken();
    const del = await ctx().call('POST', '/ui/user/delete', { token, body: { username: 'admin' } });
    expect(del.statusCode).toBe(420);
    expect(del.json().errorToken).toBe('userOnlyAdminInSystem');
    const demote = await ctx().call('POST', '/ui/user/edit', { token, body: { username: 'admin', role: 'USER' } });
    expect(demote.json().errorToken).toBe('userOnlyAdminInSystem');
  });

  it('survives two administrators racing to remove themselves, the last two', async () => {
    const db = ctx().app.services.database.db;
    for (let round = 0; round < 4; round += 1) {
      const x = await ctx().createUser({ role: 'ADMIN' });
      const y = await ctx().createUser({ role: 'ADMIN' });
      // leave exactly two administrators: x and y
      const demoted = await ctx().call('POST', '/ui/user/edit', { token: x.token, body: { username: 'admin', role: 'USER' } });
      expect(demoted.statusCode).toBe(200);
      const [removeX, demoteY] = await Promise.all([
        ctx().call('POST', '/ui/user/delete', { token: x.token, body: { username: x.profile.username } }),
        ctx().call('POST', '/ui/user/edit', { token: y.token, body: { username: y.profile.username, role: 'USER' } }),
      ]);
      expect([removeX.statusCode, demoteY.statusCode].sort()).toEqual([200, 420]);
      const loser = removeX.statusCode === 420 ? removeX : demoteY;
      expect(loser.json().errorToken).toBe('userOnlyAdminInSystem');
      const admins = await db.selectFrom('users').select('username').where('role', '=', 'ADMIN').execute();
      expect(admins).toHaveLength(1);
      // the survivor restores the original administrator and steps down
      const survivor = admins[0]!.username === x.profile.username ? x : y;
      const survivorToken = await ctx().login(survivor.profile.username, survivor.password);
      await ctx().call('POST', '/ui/user/edit', { token: survivorToken, body: { username: 'admin', role: 'ADMIN' } });
      await ctx().call('POST', '/ui/user/delete', {
        token: await ctx().login('admin', adminPassword),
        body: { username: survivor.profile.username },
      });
      const remaining = await db.selectFrom('users').select('username').where('role', '=', 'ADMIN').execute();
      expect(remaining.map((r) => r.username)).toEqual(['admin']);
    }
  });

  it('refuses the user management of an administrator demoted while the request was under way', async () => {
    const { users, sessions } = ctx().app.services;
    const rogue = await ctx().createUser({ role: 'ADMIN' });
    const target = await ctx().createUser();
    // the request got past the session and role check as ADMIN…
    const caller = (await sessions.authenticate(rogue.token, '127.0.0.1'))!;
    expect(caller.role).toBe('ADMIN');
    // …and another administrator demoted its caller before it did anything
    const admin = await ctx().adminToken();
    const demoted = await ctx().call('POST', '/ui/user/edit', {
      token: admin,
      body: { username: rogue.profile.username, role: 'USER' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);

    const puppet = buildUserInput({ role: 'ADMIN' });
    await expect(users.add(puppet, caller)).rejects.toMatchObject({ token: 'actionNotAllowed', status: 403 });
    await expect(users.edit({ username: target.profile.username, role: 'ADMIN' }, caller)).rejects.toMatchObject({
      token: 'actionNotAllowed',
    });
    await expect(users.edit({ username: target.profile.username, password: 'Another-password-9' }, caller)).rejects.toMatchObject(
      {
        token: 'actionNotAllowed',
      },
    );
    await expect(users.delete({ username: target.profile.username }, caller)).rejects.toMatchObject({
      token: 'actionNotAllowed',
    });
    await expect(users.edit({ username: 'admin', role: 'USER' }, caller)).rejects.toMatchObject({ token: 'actionNotAllowed' });

    const db = ctx().app.services.database.db;
    expect(await db.selectFrom('users').select('id').where('username', '=', puppet.username).execute()).toEqual([]);
    const stored = await db.selectFrom('users').select(['role']).where('username', '=', target.profile.username).execute();
    expect(stored).toEqual([{ role: 'USER' }]);
    expect(
      (await ctx().call('POST', '/ui/user/login', { body: { username: target.profile.username, password: target.password } }))
        .statusCode,
    ).toBe(200);
    expect((await db.selectFrom('users').select('role').where('username', '=', 'admin').executeTakeFirstOrThrow()).role).toBe(
      'ADMIN',
    );
    // the profile of their own stays theirs to edit
    const own = await users.edit({ username: rogue.profile.username, firstName: 'Demoted' }, caller);
    expect(own.firstName).toBe('Demoted');
  });

  it('keeps the initial admin password working', async () => {
    await ctx().login('admin', adminPassword);
  });
});

describeEachDatabase('the user list order', (ctx) => {
  // `mike`'s identity key is its confusable skeleton `rnike`: sorted by the key, it came after `rachel`
  const names = ['robert', 'Zoe', 'mike', 'rachel', 'alice', 'nadia'];
  const inOrder = ['admin', 'alice', 'mike', 'nadia', 'rachel', 'robert', 'Zoe'];

  it('is by username, ignoring case, on every page and in a search', async () => {
    const token = await ctx().adminToken();
    for (const username of names) await ctx().createUser({ username });
    const all = await ctx().call('GET', '/ui/user/list?pageNum=1&numberOfItems=50', { token });
    expect(all.json<{ data: { username: string }[] }>().data.map((user) => user.username)).toEqual(inOrder);
    // page by page, from the kept anchors
    const paged: string[] = [];
    for (let pageNum = 1; pageNum <= 4; pageNum += 1) {
      const page = await ctx().call('GET', `/ui/user/list?pageNum=${pageNum}&numberOfItems=2`, { token });
      expect(page.json()).toMatchObject({ totalNumOfItems: 7, totalNumOfPages: 4 });
      paged.push(...page.json<{ data: { username: string }[] }>().data.map((user) => user.username));
    }
    expect(paged).toEqual(inOrder);
    // `i` is in no searched column but the names (and the first administrator's last name)
    const searched = await ctx().call('GET', '/ui/user/list?search=I&pageNum=1&numberOfItems=50', { token });
    expect(searched.json<{ data: { username: string }[] }>().data.map((user) => user.username)).toEqual([
      'admin',
      'alice',
      'mike',
      'nadia',
    ]);
  });

  it("is the members' order of a group and of an access role", async () => {
    const token = await ctx().adminToken();
    const group = await ctx().call('POST', '/ui/groups/add', {
      token,
      body: { name: 'Everyone', description: '', members: names },
    });
    expect(group.statusCode, group.body).toBe(200);
    expect(group.json<{ members: string[] }>().members).toEqual(inOrder.slice(1));
    const role = await ctx().call('POST', '/ui/access-role/add', {
      token,
      body: { roleCode: 'user', constraintName: 'cui-download', roleMembers: names },
    });
    expect(role.statusCode, role.body).toBe(200);
    expect(role.json<{ roleMembers: string[] }>().roleMembers).toEqual(inOrder.slice(1));
  });
});

/**
 * Without ADMIN_PASSWORD the first start writes the first administrator's generated password to
 * DATA_DIR/initial-admin-password; once that password is changed the file must not outlive it.
 */
for (const changer of ['the first administrator', 'another administrator'] as const) {
  describeEachDatabase(
    `the generated password file, when ${changer} changes the first administrator's password`,
    (ctx) => {
      const file = () => path.join(ctx().config.dataDir, 'initial-admin-password');
      const fileExists = () =>
        fs.stat(file()).then(
          () => true,
          () => false,
        );

      it('is written on the first start, survives refused and unrelated changes, and goes with the password it holds', async () => {
        expect((await fs.stat(file())).mode & 0o777).toBe(0o600);
        const generated = (await fs.readFile(file(), 'utf8')).trim();
        const adminToken = await ctx().login('admin', generated);

        // a refused change of their own (wrong current password) leaves the file
        const wrong = await ctx().call('POST', '/ui/user/edit', {
          token: adminToken,
          body: { username: 'admin', password: 'Changed-password-1', currentPassword: 'not-the-password' },
        });
        expectToken(wrong, 420, 'passwordIncorrect', 'currentPassword');
        // so do a profile edit without a password, and another user's password change
        const edited = await ctx().call('POST', '/ui/user/edit', {
          token: adminToken,
          body: { username: 'admin', lastName: 'Admin' },
        });
        expect(edited.statusCode, edited.body).toBe(200);
        const second = buildUserInput({ role: 'ADMIN' });
        expect((await ctx().call('POST', '/ui/user/add', { token: adminToken, body: second })).statusCode).toBe(200);
        const secondToken = await ctx().login(second.username, second.password);
        const others = await ctx().call('POST', '/ui/user/edit', {
          token: secondToken,
          body: { username: second.username, password: 'Second-password-2', currentPassword: second.password },
        });
        expect(others.statusCode, others.body).toBe(200);
        expect(await fileExists()).toBe(true);
        expect((await fs.readFile(file(), 'utf8')).trim()).toBe(generated);

        const changed =
          changer === 'the first administrator'
            ? await ctx().call('POST', '/ui/user/edit', {
                token: adminToken,
                body: { username: 'admin', password: 'Changed-password-1', currentPassword: generated },
              })
            : await ctx().call('POST', '/ui/user/edit', {
                token: secondToken,
                body: { username: 'admin', password: 'Changed-password-1' },
              });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await fileExists()).toBe(false);
        await ctx().login('admin', 'Changed-password-1');
      });
    },
    { ADMIN_PASSWORD: '' },
  );
}

describeEachDatabase(
  'the generated password file, at a start on a database that has users',
  (ctx) => {
    const file = () => path.join(ctx().config.dataDir, 'initial-admin-password');
    const restart = () => ctx().app.services.users.ensureInitialAdmin();

    it('is kept while it logs the first administrator in, and goes once it no longer does', async () => {
      const generated = (await fs.readFile(file(), 'utf8')).trim();
      await restart();
      expect((await fs.readFile(file(), 'utf8')).trim()).toBe(generated);

      // the first administrator deleted by another: the file outlives them until the next start
      const adminToken = await ctx().login('admin', generated);
      const second = buildUserInput({ role: 'ADMIN' });
      expect((await ctx().call('POST', '/ui/user/add', { token: adminToken, body: second })).statusCode).toBe(200);
      const secondToken = await ctx().login(second.username, second.password);
      const deleted = await ctx().call('POST', '/ui/user/delete', { token: secondToken, body: { username: 'admin' } });
      expect(deleted.statusCode, deleted.body).toBe(200);
      await fs.stat(file());
      await restart();
      await expect(fs.stat(file())).rejects.toMatchObject({ code: 'ENOENT' });
      // and a start without the file is quiet
      await restart();
    });
  },
  { ADMIN_PASSWORD: '' },
);
