import { describe, expect, it } from 'vitest';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('groups', (ctx) => {
  const add = async (body: unknown) => ctx().call('POST', '/ui/groups/add', { token: await ctx().adminToken(), body });
  const storedGroup = (id: number) =>
    ctx().app.services.database.db.selectFrom('user_groups').select('name').where('id', '=', id).executeTakeFirst();

  describe('GET /ui/groups/list', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/groups/list')).statusCode).toBe(401);
    });

    it('lists groups with their members, a page at a time', async () => {
      const { profile, token } = await ctx().createUser();
      await add({ name: 'Listing A', description: 'first', members: [profile.username] });
      await add({ name: 'Listing B' });
      const response = await ctx().call('GET', '/ui/groups/list?numberOfItems=1', { token });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.data).toHaveLength(1);
      expect(body.totalNumOfPages).toBe(body.totalNumOfItems);
      const all = await ctx().call('GET', '/ui/groups/list?numberOfItems=100', { token });
      const listed = all.json().data.find((g: { name: string }) => g.name === 'Listing A');
      expect(listed).toMatchObject({ description: 'first', members: [profile.username] });
    });

    it('filters by a search in the name, its wildcards taken literally', async () => {
      const { token } = await ctx().createUser();
      const suffix = Math.random().toString(36).slice(2, 8);
      await add({ name: `Press_${suffix}%` });
      await add({ name: `PressX${suffix}Y` });
      const names = async (search: string) => {
        const response = await ctx().call('GET', `/ui/groups/list?numberOfItems=100&search=${encodeURIComponent(search)}`, {
          token,
        });
        expect(response.statusCode).toBe(200);
        return response.json<{ data: { name: string }[]; totalNumOfItems: number }>();
      };
      const literal = await names(`press_${suffix}%`);
      expect(literal.data.map((group) => group.name)).toEqual([`Press_${suffix}%`]);
      expect(literal.totalNumOfItems).toBe(1);
      expect((await names(`x${suffix}`)).data.map((group) => group.name)).toEqual([`PressX${suffix}Y`]);
      expect((await names(`press${suffix}`)).data).toEqual([]);
      expect((await ctx().call('GET', `/ui/groups/list?search=${'x'.repeat(129)}`, { token })).statusCode).toBe(400);
    });
  });

  describe('POST /ui/groups/add', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/groups/add', { body: { name: 'x' } })).statusCode).toBe(401);
    });

    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('POST', '/ui/groups/add', { token, body: { name: 'x' } })).statusCode).toBe(403);
    });

    it('adds a group with members and an audit record', async () => {
      const { profile } = await ctx().createUser();
      const response = await add({ name: 'Printers', description: 'Shop floor', members: [profile.username.toUpperCase()] });
      expect(response.statusCode).toBe(200);
      const group = response.json();
      expect(group).toMatchObject({ name: 'Printers', description: 'Shop floor', members: [profile.username] });
      expect(typeof group.userGroupId).toBe('number');
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .selectAll()
        .where('event_type', '=', 'groupAdded')
        .where('subject', '=', 'Printers')
        .execute();
      expect(audit).toHaveLength(1);
    });

    it('refuses an empty name, a taken name and unknown members, storing nothing', async () => {
      expect((await add({ name: ' ' })).json().errorToken).toBe('groupNameEmpty');
      await add({ name: 'Unique Name' });
      expect((await add({ name: 'unique name' })).json().errorToken).toBe('groupNameTaken');
      const unknown = await add({ name: 'With ghosts', members: ['ghost-1'] });
      expect(unknown.statusCode).toBe(420);
      expect(unknown.json()).toMatchObject({ errorToken: 'userNotPresent', field: 'members' });
      const stored = await ctx()
        .app.services.database.db.selectFrom('user_groups')
        .select('name')
        .where('name', '=', 'With ghosts')
        .execute();
      expect(stored).toHaveLength(0);
    });
  });

  describe('POST /ui/groups/edit', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/groups/edit', { body: { userGroupId: 1 } })).statusCode).toBe(401);
    });

    it('is for ADMIN only, leaving the group as it was', async () => {
      const group = (await add({ name: 'Not yours to edit' })).json();
      const { token } = await ctx().createUser();
      expectToken(
        await ctx().call('POST', '/ui/groups/edit', { token, body: { userGroupId: group.userGroupId, name: 'Mine now' } }),
        403,
        'actionNotAllowed',
      );
      expect((await storedGroup(group.userGroupId))?.name).toBe('Not yours to edit');
    });

    it('renames, describes and replaces members', async () => {
      const a = await ctx().createUser();
      const b = await ctx().createUser();
      const group = (await add({ name: 'Edit me', members: [a.profile.username] })).json();
      const response = await ctx().call('POST', '/ui/groups/edit', {
        token: await ctx().adminToken(),
        body: { userGroupId: group.userGroupId, name: 'Edited', description: 'now', members: [b.profile.username] },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ name: 'Edited', description: 'now', members: [b.profile.username] });
    });

    it('answers groupNotPresent, groupNameTaken and 400 for a missing id', async () => {
      const token = await ctx().adminToken();
      expect((await ctx().call('POST', '/ui/groups/edit', { token, body: { userGroupId: 999999 } })).json().errorToken).toBe(
        'groupNotPresent',
      );
      await add({ name: 'Taken one' });
      const other = (await add({ name: 'Other one' })).json();
      expect(
        (
          await ctx().call('POST', '/ui/groups/edit', { token, body: { userGroupId: other.userGroupId, name: 'TAKEN ONE' } })
        ).json().errorToken,
      ).toBe('groupNameTaken');
      expect((await ctx().call('POST', '/ui/groups/edit', { token, body: {} })).statusCode).toBe(400);
    });
  });

  describe('POST /ui/groups/delete', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/groups/delete', { body: { userGroupId: 1 } })).statusCode).toBe(401);
    });

    it('is for ADMIN only, leaving the group in place', async () => {
      const group = (await add({ name: 'Not yours to delete' })).json();
      const { token } = await ctx().createUser();
      expectToken(
        await ctx().call('POST', '/ui/groups/delete', { token, body: { userGroupId: group.userGroupId } }),
        403,
        'actionNotAllowed',
      );
      expect(await storedGroup(group.userGroupId)).toBeDefined();
    });

    it('deletes the group and its memberships, not the users', async () => {
      const { profile } = await ctx().createUser();
      const group = (await add({ name: 'Short lived', members: [profile.username] })).json();
      const token = await ctx().adminToken();
      expect(
        (await ctx().call('POST', '/ui/groups/delete', { token, body: { userGroupId: group.userGroupId } })).statusCode,
      ).toBe(200);
      expect(
        (await ctx().call('POST', '/ui/groups/delete', { token, body: { userGroupId: group.userGroupId } })).json().errorToken,
      ).toBe('groupNotPresent');
      const db = ctx().app.services.database.db;
      expect(
        await db.selectFrom('user_group_members').selectAll().where('group_id', '=', group.userGroupId).execute(),
      ).toHaveLength(0);
      expect(await db.selectFrom('users').select('id').where('username', '=', profile.username).execute()).toHaveLength(1);
    });

    it('drops a deleted user from the groups', async () => {
      const { profile } = await ctx().createUser();
      const group = (await add({ name: 'Loses a member', members: [profile.username] })).json();
      await ctx().call('POST', '/ui/user/delete', { token: await ctx().adminToken(), body: { username: profile.username } });
      const list = await ctx().call('GET', '/ui/groups/list?numberOfItems=100', { token: await ctx().adminToken() });
      expect(list.json().data.find((g: { userGroupId: number }) => g.userGroupId === group.userGroupId).members).toEqual([]);
    });
  });
});
