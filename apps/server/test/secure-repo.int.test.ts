import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TGroup, TSecureRepoListResponse, TSecureRepoNode } from '@manifold/contract';
import { multipartForm, type FormFile } from './helpers/multipart.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const UPLOAD_MAX_BYTES = 512 * 1024;
const unknownId = '00000000-0000-4000-8000-000000000000';
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

interface Person {
  username: string;
  token: string;
}

/** The app's address, listening on a free port (started once per app). */
async function listening(ctx: TestApp): Promise<string> {
  const address = ctx.app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  return ctx.app.listen({ port: 0, host: '127.0.0.1' });
}

async function nodeRow(ctx: TestApp, nodeId: string) {
  return ctx.app.services.database.db.selectFrom('secure_repo_nodes').selectAll().where('id', '=', nodeId).executeTakeFirst();
}

async function storedBytes(ctx: TestApp, key: string): Promise<Buffer> {
  return buffer(await ctx.app.services.storage.get(key));
}

/** Every key in storage. */
async function storageKeys(ctx: TestApp): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of ctx.app.services.storage.list()) keys.push(object.key);
  return keys.sort();
}

async function audits(ctx: TestApp, type: string, subject: string) {
  return ctx.app.services.database.db
    .selectFrom('audit_events')
    .select(['actor', 'details'])
    .where('event_type', '=', type)
    .where('subject', '=', subject)
    .execute();
}

describeEachDatabase(
  'secure repository',
  (ctx) => {
    let admin: string;
    let alice: Person; // group A
    let bob: Person; // group B
    let groupA: number;
    let groupB: number;
    let folderA: TSecureRepoNode;
    let folderB: TSecureRepoNode;

    const call = (method: 'GET' | 'POST', url: string, token: string | undefined, body?: unknown) =>
      ctx().call(method, url, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
    const createFolder = (token: string, body: Record<string, unknown>) =>
      call('POST', '/ui/secure-repo/create-folder', token, body);
    const list = (token: string, query = '') => call('GET', `/ui/secure-repo/list${query ? `?${query}` : ''}`, token);
    const upload = (token: string | undefined, fields: Record<string, string | FormFile>) => {
      const { body, headers } = multipartForm(fields);
      return ctx().call('POST', '/ui/secure-repo/upload', { ...(token ? { token } : {}), body, headers });
    };
    const uploadFile = (token: string, nodeId: string, filename: string, content: Buffer | string) =>
      upload(token, { nodeId, file: { filename, content, contentType: 'application/pdf' } });
    const download = (token: string, nodeId: string) => call('GET', `/ui/secure-repo/download?nodeId=${nodeId}`, token);
    const names = (response: { json(): unknown }) =>
      (response.json() as TSecureRepoListResponse).nodes.map((node) => node.folderName);

    async function person(groupMembersOf: (username: string) => Promise<void>): Promise<Person> {
      const { profile, token } = await ctx().createUser();
      await groupMembersOf(profile.username);
      return { username: profile.username, token };
    }

    beforeAll(async () => {
      admin = await ctx().adminToken();
      const group = async (name: string) =>
        (await call('POST', '/ui/groups/add', admin, { name, members: [] })).json<TGroup>().userGroupId;
      groupA = await group('Design team');
      groupB = await group('Suppliers');
      const join = (groupId: number, name: string) => async (username: string) => {
        const response = await call('POST', '/ui/groups/edit', admin, { userGroupId: groupId, name, members: [username] });
        expect(response.statusCode, response.body).toBe(200);
      };
      alice = await person(join(groupA, 'Design team'));
      bob = await person(join(groupB, 'Suppliers'));
      folderA = (await createFolder(admin, { folderName: 'Design', description: 'Drawings', groups: [groupA] })).json();
      folderB = (await createFolder(admin, { folderName: 'Supply', groups: [groupB] })).json();
      expect(folderA.nodeId).toBeTruthy();
      expect(folderB.nodeId).toBeTruthy();
    });

    describe('every call', () => {
      it.each([
        ['GET', '/ui/secure-repo/list'],
        ['POST', '/ui/secure-repo/create-folder'],
        ['POST', '/ui/secure-repo/upload'],
        ['POST', '/ui/secure-repo/edit-file'],
        ['POST', '/ui/secure-repo/delete'],
        ['GET', `/ui/secure-repo/download?nodeId=${unknownId}`],
      ] as const)('%s %s should require authentication', async (method, url) => {
        expectToken(
          await call(method, url, undefined, method === 'POST' ? { nodeId: unknownId } : undefined),
          401,
          'invalidSessionToken',
        );
      });

      it.each([
        ['POST', '/ui/secure-repo/edit-file', { nodeId: 'not-a-uuid' }],
        ['POST', '/ui/secure-repo/delete', { nodeId: 'nope' }],
        ['GET', '/ui/secure-repo/download?nodeId=..%2F..%2Fetc%2Fpasswd', undefined],
        ['GET', '/ui/secure-repo/list?nodeId=..', undefined],
      ] as const)('%s %s answers secureRepoNodeNotPresent for a malformed id', async (method, url, body) => {
        expectToken(await call(method, url, alice.token, body), 420, 'secureRepoNodeNotPresent', 'nodeId');
      });
    });

    describe('POST /ui/secure-repo/create-folder', () => {
      it('creates a top-level folder (ADMIN) shared with groups, audited', async () => {
        expect(folderA).toMatchObject({
          parentNodeId: null,
          nodeType: 'folder',
          folderName: 'Design',
          description: 'Drawings',
          groups: [groupA],
          owner: 'admin',
          size: null,
        });
        expect(await audits(ctx(), 'secureRepoFolderCreated', folderA.nodeId)).toHaveLength(1);
      });

      it('refuses a top-level folder to a USER with 403', async () => {
        expectToken(await createFolder(alice.token, { folderName: 'Mine', groups: [groupA] }), 403, 'actionNotAllowed');
      });

      it('lets a USER create a folder in a folder they see, shared with its groups by default', async () => {
        const response = await createFolder(alice.token, { parentNodeId: folderA.nodeId, folderName: 'Rev 2' });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ parentNodeId: folderA.nodeId, groups: [groupA], owner: alice.username });
      });

      it('hides folders of other groups: creating in one answers secureRepoNodeNotPresent', async () => {
        expectToken(
          await createFolder(alice.token, { parentNodeId: folderB.nodeId, folderName: 'x' }),
          420,
          'secureRepoNodeNotPresent',
          'parentNodeId',
        );
      });

      it.each(['..', '.', '../escape', 'a/b', 'a\\b', '..\\..\\boot.ini', 'tab\there', 'new\nline', '   ', 'x'.repeat(256)])(
        'refuses the name %j with secureRepoNameInvalid',
        async (folderName) => {
          expectToken(
            await createFolder(admin, { parentNodeId: folderA.nodeId, folderName }),
            420,
            'secureRepoNameInvalid',
            'folderName',
          );
        },
      );

      it('takes a name of 255 characters whose lower case is longer (İ), still unique ignoring case', async () => {
        const folderName = `${'\u0130'.repeat(200)}${'A'.repeat(55)}`;
        const created = await createFolder(admin, { parentNodeId: folderA.nodeId, folderName });
        expect(created.statusCode, created.body).toBe(200);
        expect(created.json()).toMatchObject({ folderName });
        expectToken(
          await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: `${'\u0130'.repeat(200)}${'a'.repeat(55)}` }),
          420,
          'secureRepoNameTaken',
          'folderName',
        );
        const file = await uploadFile(alice.token, folderA.nodeId, `${'\u0130'.repeat(250)}.txt`, 'x');
        expect(file.statusCode, file.body).toBe(200);
        const listed = await call('GET', `/ui/secure-repo/list?nodeId=${folderA.nodeId}&numberOfItems=100`, admin);
        expect(listed.json<TSecureRepoListResponse>().nodes.map((node) => node.folderName)).toContain(folderName);
      });

      it('refuses a name taken in the folder, ignoring case (secureRepoNameTaken); another folder may reuse it', async () => {
        expect((await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'Specs' })).statusCode).toBe(200);
        expectToken(
          await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'SPECS' }),
          420,
          'secureRepoNameTaken',
          'folderName',
        );
        expectToken(await createFolder(admin, { folderName: 'design' }), 420, 'secureRepoNameTaken', 'folderName');
        expect((await createFolder(admin, { parentNodeId: folderB.nodeId, folderName: 'specs' })).statusCode).toBe(200);
      });

      it('refuses groups outside the parent’s (secureRepoGroupsNotInParent) and unknown groups (groupNotPresent)', async () => {
        expectToken(
          await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'Wider', groups: [groupA, groupB] }),
          420,
          'secureRepoGroupsNotInParent',
          'groups',
        );
        expectToken(await createFolder(admin, { folderName: 'Ghost', groups: [999_999] }), 420, 'groupNotPresent', 'groups');
      });

      it('refuses a file as the parent (secureRepoNotAFolder) and an unknown parent', async () => {
        const file = (await uploadFile(alice.token, folderA.nodeId, 'parent.txt', 'x')).json<TSecureRepoNode>();
        expectToken(
          await createFolder(admin, { parentNodeId: file.nodeId, folderName: 'in a file' }),
          420,
          'secureRepoNotAFolder',
          'parentNodeId',
        );
        expectToken(
          await createFolder(admin, { parentNodeId: unknownId, folderName: 'x' }),
          420,
          'secureRepoNodeNotPresent',
          'parentNodeId',
        );
      });

      it('refuses folders nested deeper than 16 levels (secureRepoFolderTooDeep)', async () => {
        let parent = (await createFolder(admin, { folderName: 'Deep', groups: [] })).json<TSecureRepoNode>();
        for (let depth = 1; depth < 16; depth += 1) {
          parent = (
            await createFolder(admin, { parentNodeId: parent.nodeId, folderName: `level ${depth}` })
          ).json<TSecureRepoNode>();
        }
        expectToken(
          await createFolder(admin, { parentNodeId: parent.nodeId, folderName: 'too deep' }),
          420,
          'secureRepoFolderTooDeep',
        );
      });
    });

    describe('GET /ui/secure-repo/list', () => {
      it('shows a USER only the folders shared with their groups; an ADMIN all', async () => {
        expect(names(await list(alice.token))).toEqual(['Design']);
        expect(names(await list(bob.token))).toEqual(['Supply']);
        const all = names(await list(admin, 'numberOfItems=100'));
        expect(all).toEqual(expect.arrayContaining(['Design', 'Supply', 'Deep']));
      });

      it('lists a folder’s children a page at a time, folders first, with currentNode, owner and ancestors', async () => {
        const parent = (await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'Paged' })).json<TSecureRepoNode>();
        for (const name of ['b', 'a', 'c']) await createFolder(admin, { parentNodeId: parent.nodeId, folderName: name });
        await uploadFile(alice.token, parent.nodeId, 'A file.txt', 'content');
        const first = await list(alice.token, `nodeId=${parent.nodeId}&numberOfItems=2`);
        expect(first.statusCode, first.body).toBe(200);
        const page = first.json<TSecureRepoListResponse>();
        expect(page).toMatchObject({ pageNum: 1, numberOfItems: 2, totalNumOfItems: 4, totalNumOfPages: 2, owner: 'admin' });
        expect(page.nodes.map((node) => node.folderName)).toEqual(['a', 'b']);
        expect(page.currentNode).toMatchObject({ nodeId: parent.nodeId, folderName: 'Paged', groups: [groupA] });
        expect(page.ancestors.map((node) => node.folderName)).toEqual(['Design']);
        const second = (
          await list(alice.token, `nodeId=${parent.nodeId}&numberOfItems=2&pageNum=2`)
        ).json<TSecureRepoListResponse>();
        expect(second.nodes.map((node) => [node.folderName, node.nodeType, node.groups])).toEqual([
          ['c', 'folder', [groupA]],
          ['A file.txt', 'file', [groupA]],
        ]);
      });

      it('answers secureRepoNodeNotPresent for a folder of another group and secureRepoNotAFolder for a file', async () => {
        expectToken(await list(alice.token, `nodeId=${folderB.nodeId}`), 420, 'secureRepoNodeNotPresent', 'nodeId');
        const file = (await uploadFile(bob.token, folderB.nodeId, 'listed.txt', 'x')).json<TSecureRepoNode>();
        expectToken(await list(bob.token, `nodeId=${file.nodeId}`), 420, 'secureRepoNotAFolder', 'nodeId');
      });
    });

    describe('POST /ui/secure-repo/upload and GET /ui/secure-repo/download', () => {
      it('stores the file encrypted (not the plaintext at rest), serves it back decrypted, audits both', async () => {
        const content = Buffer.from('Confidential drawing notes. '.repeat(5000));
        const response = await uploadFile(alice.token, folderA.nodeId, 'Notes.pdf', content);
        expect(response.statusCode, response.body).toBe(200);
        const node = response.json<TSecureRepoNode>();
        expect(node).toMatchObject({
          parentNodeId: folderA.nodeId,
          nodeType: 'file',
          folderName: 'Notes.pdf',
          size: content.length,
          sha256: sha256(content),
          contentType: 'application/pdf',
          owner: alice.username,
          groups: [groupA],
        });
        const row = (await nodeRow(ctx(), node.nodeId))!;
        const atRest = await storedBytes(ctx(), row.storage_key!);
        expect(atRest.includes(Buffer.from('Confidential'))).toBe(false);
        expect(atRest.length).toBeGreaterThan(content.length);
        expect(Number(row.stored_size)).toBe(atRest.length);
        expect(row.sealed_key).not.toContain(row.storage_key!);

        const fetched = await download(alice.token, node.nodeId);
        expect(fetched.statusCode, fetched.body.slice(0, 200)).toBe(200);
        expect(fetched.rawPayload.equals(content)).toBe(true);
        expect(fetched.headers['content-length']).toBe(String(content.length));
        expect(fetched.headers['content-disposition']).toContain('Notes.pdf');
        expect(fetched.headers['x-content-sha256']).toBe(sha256(content));

        expect(await audits(ctx(), 'secureRepoFileUploaded', node.nodeId)).toEqual([
          expect.objectContaining({ actor: alice.username }),
        ]);
        expect(await audits(ctx(), 'secureRepoFileDownloaded', node.nodeId)).toEqual([
          expect.objectContaining({ actor: alice.username }),
        ]);
      });

      it('keeps files of one group from users of another (upload, download, list)', async () => {
        const node = (await uploadFile(alice.token, folderA.nodeId, 'secret.txt', 'for group A')).json<TSecureRepoNode>();
        expectToken(await download(bob.token, node.nodeId), 420, 'secureRepoNodeNotPresent', 'nodeId');
        expectToken(await uploadFile(bob.token, folderA.nodeId, 'intrusion.txt', 'x'), 420, 'secureRepoNodeNotPresent', 'nodeId');
        expectToken(await list(bob.token, `nodeId=${folderA.nodeId}`), 420, 'secureRepoNodeNotPresent', 'nodeId');
        expect((await download(admin, node.nodeId)).body).toBe('for group A');
        expect(await audits(ctx(), 'secureRepoFileDownloaded', node.nodeId)).toEqual([
          expect.objectContaining({ actor: 'admin' }),
        ]);
      });

      it.each(['..', '.', 'bell\u0007.txt', 'tab\t.txt', 'rtl\u202efdp.exe'])(
        'refuses the file name %j (dot names, control characters) and stores nothing',
        async (filename) => {
          const before = await storageKeys(ctx());
          expectToken(await uploadFile(alice.token, folderA.nodeId, filename, 'x'), 420, 'secureRepoNameInvalid', 'file');
          expect(await storageKeys(ctx())).toEqual(before);
        },
      );

      it.each([
        ['../../etc/passwd', 'passwd'],
        ['..\\..\\win.ini', 'win.ini'],
      ])(
        'keeps only the last segment of the file name %j (the form reader drops paths): %j inside the folder',
        async (filename, stored) => {
          const response = await uploadFile(alice.token, folderA.nodeId, filename, 'x');
          expect(response.statusCode, response.body).toBe(200);
          expect(response.json()).toMatchObject({ folderName: stored, parentNodeId: folderA.nodeId });
        },
      );

      it('refuses a name taken in the folder ignoring case, storing nothing', async () => {
        await uploadFile(alice.token, folderA.nodeId, 'Report.txt', 'one');
        const before = await storageKeys(ctx());
        expectToken(await uploadFile(alice.token, folderA.nodeId, 'REPORT.TXT', 'two'), 420, 'secureRepoNameTaken', 'file');
        expect(await storageKeys(ctx())).toEqual(before);
      });

      it('refuses an oversized upload with 413 payloadTooLarge, leaving no row and no object', async () => {
        const before = await storageKeys(ctx());
        const response = await uploadFile(alice.token, folderA.nodeId, 'huge.bin', randomBytes(UPLOAD_MAX_BYTES + 1));
        expectToken(response, 413, 'payloadTooLarge');
        expect(await storageKeys(ctx())).toEqual(before);
        const rows = await ctx()
          .app.services.database.db.selectFrom('secure_repo_nodes')
          .select('id')
          .where('name', '=', 'huge.bin')
          .execute();
        expect(rows).toEqual([]);
      });

      it('stores nothing of an upload cut off before its end (400 malformedRequest)', async () => {
        const before = await storageKeys(ctx());
        const { body, headers } = multipartForm({
          nodeId: folderA.nodeId,
          file: { filename: 'cut.bin', content: randomBytes(200_000) },
        });
        const response = await ctx().call('POST', '/ui/secure-repo/upload', {
          token: alice.token,
          body: body.subarray(0, body.length - 100_000),
          headers,
        });
        expectToken(response, 400, 'malformedRequest');
        expect(await storageKeys(ctx())).toEqual(before);
        const rows = await ctx()
          .app.services.database.db.selectFrom('secure_repo_nodes')
          .select('id')
          .where('name', '=', 'cut.bin')
          .execute();
        expect(rows).toEqual([]);
      });

      it('accepts a file of exactly the limit', async () => {
        const content = randomBytes(UPLOAD_MAX_BYTES);
        const node = (await uploadFile(alice.token, folderA.nodeId, 'limit.bin', content)).json<TSecureRepoNode>();
        expect((await download(alice.token, node.nodeId)).rawPayload.equals(content)).toBe(true);
      });

      it('wants nodeId before the file (secureRepoFieldsFirst), a file (uploadFileMissing), a folder (secureRepoNotAFolder)', async () => {
        expectToken(
          await upload(alice.token, { file: { filename: 'a.txt', content: 'x' }, nodeId: folderA.nodeId }),
          420,
          'secureRepoFieldsFirst',
          'file',
        );
        expectToken(await upload(alice.token, { nodeId: folderA.nodeId }), 420, 'uploadFileMissing', 'file');
        const file = (await uploadFile(alice.token, folderA.nodeId, 'target.txt', 'x')).json<TSecureRepoNode>();
        expectToken(await uploadFile(alice.token, file.nodeId, 'b.txt', 'x'), 420, 'secureRepoNotAFolder', 'nodeId');
        expectToken(
          await upload(alice.token, { nodeId: 'x', file: { filename: 'a.txt', content: 'x' } }),
          420,
          'secureRepoNodeNotPresent',
          'nodeId',
        );
      });

      it('has no HEAD download (it would record a download that hands nothing out)', async () => {
        const node = (await uploadFile(alice.token, folderA.nodeId, 'head.txt', 'x')).json<TSecureRepoNode>();
        const response = await ctx().app.inject({
          method: 'HEAD',
          url: `/ui/secure-repo/download?nodeId=${node.nodeId}`,
          headers: { authorization: `Bearer ${alice.token}` },
        });
        expect(response.statusCode).toBe(404);
        expect(await audits(ctx(), 'secureRepoFileDownloaded', node.nodeId)).toEqual([]);
      });

      it('refuses to download a folder', async () => {
        expectToken(await download(alice.token, folderA.nodeId), 420, 'secureRepoNotAFolder', 'nodeId');
      });

      /** Replaces the stored object of a file by a copy with one byte flipped at `offset` from the end. */
      async function tamper(nodeId: string, offsetFromEnd: number): Promise<void> {
        const row = (await nodeRow(ctx(), nodeId))!;
        const bytes = await storedBytes(ctx(), row.storage_key!);
        bytes[bytes.length - offsetFromEnd]! ^= 0x01;
        const stored = await ctx().app.services.storage.put(Readable.from([bytes]));
        await ctx()
          .app.services.database.db.updateTable('secure_repo_nodes')
          .set({ storage_key: stored.key })
          .where('id', '=', nodeId)
          .execute();
      }

      it('refuses a small file changed at rest with secureRepoFileCorrupted, releasing none of it', async () => {
        const node = (await uploadFile(alice.token, folderA.nodeId, 'tampered.txt', 'exact figures')).json<TSecureRepoNode>();
        await tamper(node.nodeId, 20);
        expectToken(await download(alice.token, node.nodeId), 420, 'secureRepoFileCorrupted', 'nodeId');
        expect(await audits(ctx(), 'secureRepoFileDownloaded', node.nodeId)).toEqual([]);
      });

      it('aborts the download of a large file changed at rest instead of completing it', async () => {
        const content = randomBytes(300 * 1024);
        const node = (await uploadFile(alice.token, folderA.nodeId, 'tampered.bin', content)).json<TSecureRepoNode>();
        await tamper(node.nodeId, 100);
        const response = await fetch(`${await listening(ctx())}/ui/secure-repo/download?nodeId=${node.nodeId}`, {
          headers: { authorization: `Bearer ${alice.token}` },
        });
        expect(response.status).toBe(200);
        await expect(response.arrayBuffer()).rejects.toThrow();
      });

      it('answers storageTypeReadError when the stored object is gone', async () => {
        const node = (await uploadFile(alice.token, folderA.nodeId, 'vanished.txt', 'x')).json<TSecureRepoNode>();
        await ctx().app.services.storage.delete((await nodeRow(ctx(), node.nodeId))!.storage_key!);
        expectToken(await download(alice.token, node.nodeId), 420, 'storageTypeReadError', 'nodeId');
      });
    });

    describe('POST /ui/secure-repo/edit-file', () => {
      it('changes a description for whoever sees the node, audited; others get secureRepoNodeNotPresent', async () => {
        const file = (await uploadFile(alice.token, folderA.nodeId, 'described.txt', 'x')).json<TSecureRepoNode>();
        const response = await call('POST', '/ui/secure-repo/edit-file', alice.token, {
          nodeId: file.nodeId,
          description: 'Final',
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ nodeId: file.nodeId, description: 'Final', folderName: 'described.txt' });
        expect((await nodeRow(ctx(), file.nodeId))!.description).toBe('Final');
        expect(await audits(ctx(), 'secureRepoNodeEdited', file.nodeId)).toHaveLength(1);
        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', bob.token, { nodeId: file.nodeId, description: 'mine' }),
          420,
          'secureRepoNodeNotPresent',
          'nodeId',
        );
      });

      it('lets only an ADMIN change whom a folder is shared with; narrowing takes the groups from the folders inside', async () => {
        const top = (await createFolder(admin, { folderName: 'Shared both', groups: [groupA, groupB] })).json<TSecureRepoNode>();
        const inner = (await createFolder(admin, { parentNodeId: top.nodeId, folderName: 'Inner' })).json<TSecureRepoNode>();
        expect(inner.groups).toEqual([groupA, groupB].sort((a, b) => a - b));
        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', alice.token, { nodeId: top.nodeId, groups: [groupA] }),
          403,
          'actionNotAllowed',
        );
        const narrowed = await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: top.nodeId, groups: [groupA] });
        expect(narrowed.statusCode, narrowed.body).toBe(200);
        expect(narrowed.json()).toMatchObject({ groups: [groupA] });
        const innerNow = (await list(admin, `nodeId=${top.nodeId}`)).json<TSecureRepoListResponse>().nodes[0]!;
        expect(innerNow.groups).toEqual([groupA]);
        expect(names(await list(bob.token))).not.toContain('Shared both');
        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: inner.nodeId, groups: [groupB] }),
          420,
          'secureRepoGroupsNotInParent',
          'groups',
        );
        const file = (await uploadFile(alice.token, inner.nodeId, 'f.txt', 'x')).json<TSecureRepoNode>();
        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: file.nodeId, groups: [groupA] }),
          420,
          'secureRepoNotAFolder',
          'groups',
        );
      });

      it('keeps every folder within its parent’s groups when folders are made under one being narrowed', async () => {
        const db = ctx().app.services.database.db;
        for (let round = 0; round < 6; round += 1) {
          const top = (
            await createFolder(admin, { folderName: `Narrowed ${round}`, groups: [groupA, groupB] })
          ).json<TSecureRepoNode>();
          const [narrowed, withB, inherited] = await Promise.all([
            call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: top.nodeId, groups: [groupA] }),
            createFolder(admin, { parentNodeId: top.nodeId, folderName: 'Suppliers too', groups: [groupB] }),
            createFolder(admin, { parentNodeId: top.nodeId, folderName: 'Inherited' }),
          ]);
          expect(narrowed.statusCode, narrowed.body).toBe(200);
          expect(inherited.statusCode, inherited.body).toBe(200);
          // made before the narrowing (and narrowed with it), or after it and refused
          if (withB.statusCode !== 200) expectToken(withB, 420, 'secureRepoGroupsNotInParent', 'groups');
          const listed = (await list(admin, `nodeId=${top.nodeId}`)).json<TSecureRepoListResponse>().nodes;
          expect(listed.find((node) => node.folderName === 'Inherited')!.groups).toEqual([groupA]);
          if (withB.statusCode === 200) expect(listed.find((node) => node.folderName === 'Suppliers too')!.groups).toEqual([]);
        }
        const outside = await db
          .selectFrom('secure_repo_node_groups as shared')
          .innerJoin('secure_repo_nodes as child', 'child.id', 'shared.node_id')
          .leftJoin('secure_repo_node_groups as above', (join) =>
            join.onRef('above.node_id', '=', 'child.parent_id').onRef('above.group_id', '=', 'shared.group_id'),
          )
          .select(['child.id', 'shared.group_id'])
          .where('child.parent_id', 'is not', null)
          .where('above.node_id', 'is', null)
          .execute();
        expect(outside).toEqual([]);
      });
    });

    describe('POST /ui/secure-repo/delete', () => {
      it('deletes a folder with its subfolders and files, removing their objects from storage, audited per file', async () => {
        const top = (
          await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'To delete' })
        ).json<TSecureRepoNode>();
        const inner = (
          await createFolder(alice.token, { parentNodeId: top.nodeId, folderName: 'Inner' })
        ).json<TSecureRepoNode>();
        const files = [
          (await uploadFile(alice.token, top.nodeId, 'one.txt', 'one')).json<TSecureRepoNode>(),
          (await uploadFile(alice.token, inner.nodeId, 'two.txt', 'two')).json<TSecureRepoNode>(),
        ];
        const keys = await Promise.all(files.map(async (file) => (await nodeRow(ctx(), file.nodeId))!.storage_key!));
        for (const key of keys) expect(await ctx().app.services.storage.exists(key)).toBe(true);

        expectToken(
          await call('POST', '/ui/secure-repo/delete', bob.token, { nodeId: top.nodeId }),
          420,
          'secureRepoNodeNotPresent',
          'nodeId',
        );
        const response = await call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: top.nodeId });
        expect(response.statusCode, response.body).toBe(200);
        for (const node of [top, inner, ...files]) expect(await nodeRow(ctx(), node.nodeId)).toBeUndefined();
        for (const key of keys) expect(await ctx().app.services.storage.exists(key)).toBe(false);
        const [record] = await audits(ctx(), 'secureRepoNodeDeleted', top.nodeId);
        expect(record).toMatchObject({ actor: alice.username });
        expect(JSON.parse(record!.details!)).toMatchObject({ nodeType: 'folder', files: 2, folders: 2 });
        for (const file of files) expect(await audits(ctx(), 'secureRepoNodeDeleted', file.nodeId)).toHaveLength(1);
        expectToken(
          await call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: top.nodeId }),
          420,
          'secureRepoNodeNotPresent',
          'nodeId',
        );
      });

      it('refuses a USER a top-level folder and a folder holding folders they do not see (403)', async () => {
        expectToken(
          await call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: folderA.nodeId }),
          403,
          'actionNotAllowed',
        );
        const parent = (await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'Mixed' })).json<TSecureRepoNode>();
        await createFolder(admin, { parentNodeId: parent.nodeId, folderName: 'Admins only', groups: [] });
        expectToken(
          await call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: parent.nodeId }),
          403,
          'actionNotAllowed',
        );
        expect(await nodeRow(ctx(), parent.nodeId)).toBeDefined();
        expect((await call('POST', '/ui/secure-repo/delete', admin, { nodeId: parent.nodeId })).statusCode).toBe(200);
      });

      it('leaves no file or folder in a folder deleted while uploads and new folders go into it, and no object without its row', async () => {
        const db = ctx().app.services.database.db;
        for (let round = 0; round < 6; round += 1) {
          const top = (
            await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: `Racing ${round}` })
          ).json<TSecureRepoNode>();
          const inner = (
            await createFolder(alice.token, { parentNodeId: top.nodeId, folderName: 'Inner' })
          ).json<TSecureRepoNode>();
          const deeper = (
            await createFolder(alice.token, { parentNodeId: inner.nodeId, folderName: 'Deeper' })
          ).json<TSecureRepoNode>();
          const keysBefore = await storageKeys(ctx());
          const [deleted, ...answers] = await Promise.all([
            call('POST', '/ui/secure-repo/delete', admin, { nodeId: top.nodeId }),
            uploadFile(alice.token, inner.nodeId, 'one.txt', `one ${round}`),
            uploadFile(alice.token, deeper.nodeId, 'two.txt', `two ${round}`),
            createFolder(alice.token, { parentNodeId: deeper.nodeId, folderName: 'Late' }),
            uploadFile(alice.token, top.nodeId, 'three.txt', `three ${round}`),
            createFolder(alice.token, { parentNodeId: inner.nodeId, folderName: 'Late too' }),
          ]);
          // the delete takes everything below the folder; each upload or new folder went in
          // before it (and went with it) or came after and found no folder
          expect(deleted!.statusCode, deleted!.body).toBe(200);
          for (const [index, answer] of answers.entries()) {
            if (answer.statusCode !== 200) {
              expectToken(answer, 420, 'secureRepoNodeNotPresent', index === 2 || index === 4 ? 'parentNodeId' : 'nodeId');
            }
          }
          const left = await db.selectFrom('secure_repo_nodes').select('id').where('path', 'like', `%/${top.nodeId}/%`).execute();
          expect(left).toEqual([]);
          const named = new Set(
            (await db.selectFrom('secure_repo_nodes').select('storage_key').where('storage_key', 'is not', null).execute()).map(
              (row) => row.storage_key,
            ),
          );
          expect((await storageKeys(ctx())).filter((key) => !keysBefore.includes(key) && !named.has(key))).toEqual([]);
        }
        const orphans = await db
          .selectFrom('secure_repo_nodes as child')
          .leftJoin('secure_repo_nodes as parent', 'parent.id', 'child.parent_id')
          .select('child.id')
          .where('child.parent_id', 'is not', null)
          .where('parent.id', 'is', null)
          .execute();
        expect(orphans).toEqual([]);
      });

      it('refuses a USER the delete of a folder an ADMIN makes out of their sight in it at the same time', async () => {
        for (let round = 0; round < 6; round += 1) {
          const shared = (
            await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: `Contested ${round}` })
          ).json<TSecureRepoNode>();
          const [deleted, hidden] = await Promise.all([
            call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: shared.nodeId }),
            createFolder(admin, { parentNodeId: shared.nodeId, folderName: 'Admins only', groups: [] }),
          ]);
          if (deleted.statusCode === 200) {
            // the delete went first: there was nothing hidden, and then no folder to make one in
            expectToken(hidden, 420, 'secureRepoNodeNotPresent', 'parentNodeId');
            expect(await nodeRow(ctx(), shared.nodeId)).toBeUndefined();
          } else {
            expectToken(deleted, 403, 'actionNotAllowed');
            expect(hidden.statusCode, hidden.body).toBe(200);
            expect(await nodeRow(ctx(), hidden.json<TSecureRepoNode>().nodeId)).toBeDefined();
          }
        }
      });

      it('deletes a single file and its object', async () => {
        const file = (await uploadFile(alice.token, folderA.nodeId, 'single.txt', 'x')).json<TSecureRepoNode>();
        const key = (await nodeRow(ctx(), file.nodeId))!.storage_key!;
        expect((await call('POST', '/ui/secure-repo/delete', alice.token, { nodeId: file.nodeId })).statusCode).toBe(200);
        expect(await ctx().app.services.storage.exists(key)).toBe(false);
        expect(await audits(ctx(), 'secureRepoNodeDeleted', file.nodeId)).toEqual([
          expect.objectContaining({ actor: alice.username }),
        ]);
      });
    });

    describe('CUI and FCI labels', () => {
      const wired = '10.1.2.3';
      const outside = '203.0.113.9';
      /** A call from a given client address (the server's `request.ip`). */
      const callFrom = (
        address: string,
        method: 'GET' | 'POST',
        url: string,
        token: string,
        payload?: string | Buffer,
        headers = {},
      ) =>
        ctx().app.inject({
          method,
          url,
          remoteAddress: address,
          headers: { ...headers, authorization: `Bearer ${token}` },
          payload,
        });
      const uploadFrom = (address: string, token: string, nodeId: string, filename: string, content: string) => {
        const form = multipartForm({ nodeId, file: { filename, content, contentType: 'text/plain' } });
        return callFrom(address, 'POST', '/ui/secure-repo/upload', token, form.body, form.headers);
      };
      const downloadFrom = (address: string, token: string, nodeId: string) =>
        callFrom(address, 'GET', `/ui/secure-repo/download?nodeId=${nodeId}`, token);

      it('labels a folder at creation (ADMIN only); folders and files below carry the label; editing changes it', async () => {
        expectToken(
          await createFolder(alice.token, { parentNodeId: folderA.nodeId, folderName: 'Mine', classification: 'CUI' }),
          403,
          'actionNotAllowed',
        );
        expect((await createFolder(admin, { folderName: 'Bad label', classification: 'SECRET' })).statusCode).toBe(400);
        const labelled = await createFolder(admin, {
          parentNodeId: folderA.nodeId,
          folderName: 'Controlled',
          classification: 'FCI',
        });
        expect(labelled.statusCode, labelled.body).toBe(200);
        const folder = labelled.json<TSecureRepoNode>();
        expect(folder.classification).toBe('FCI');
        expect((await nodeRow(ctx(), folder.nodeId))?.classification).toBe('FCI');
        expect(
          (await audits(ctx(), 'secureRepoFolderCreated', folder.nodeId)).map((row) => JSON.parse(row.details ?? '{}')),
        ).toEqual([expect.objectContaining({ classification: 'FCI' })]);
        // a subfolder created by a USER inherits the label; it cannot be lowered below its folder's
        const inner = (
          await createFolder(alice.token, { parentNodeId: folder.nodeId, folderName: 'Inner' })
        ).json<TSecureRepoNode>();
        expect(inner.classification).toBe('FCI');
        const file = (await uploadFile(alice.token, inner.nodeId, 'spec.txt', 'fci data')).json<TSecureRepoNode>();
        expect(file.classification).toBe('FCI');

        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', alice.token, { nodeId: folder.nodeId, classification: null }),
          403,
          'actionNotAllowed',
        );
        expectToken(
          await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: file.nodeId, classification: 'CUI' }),
          420,
          'secureRepoNotAFolder',
          'classification',
        );
        const raised = await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: folder.nodeId, classification: 'CUI' });
        expect(raised.statusCode, raised.body).toBe(200);
        expect(raised.json()).toMatchObject({ classification: 'CUI' });
        const listed = (await list(admin, `nodeId=${inner.nodeId}`)).json<TSecureRepoListResponse>();
        expect(listed.currentNode?.classification).toBe('CUI');
        expect(listed.ancestors.map((node) => node.classification)).toEqual([null, 'CUI']);
        expect(listed.nodes.map((node) => [node.folderName, node.classification])).toEqual([['spec.txt', 'CUI']]);
        // an inner folder's own label lower than its folder's changes nothing that applies
        const lowered = await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: inner.nodeId, classification: 'FCI' });
        expect(lowered.json()).toMatchObject({ classification: 'CUI' });
        const cleared = await call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: folder.nodeId, classification: null });
        expect(cleared.json()).toMatchObject({ classification: null });
        expect((await list(admin, `nodeId=${inner.nodeId}`)).json<TSecureRepoListResponse>().currentNode?.classification).toBe(
          'FCI',
        );
        expect(
          (await audits(ctx(), 'secureRepoNodeEdited', folder.nodeId)).map((row) => JSON.parse(row.details ?? '{}')),
        ).toEqual([{ classification: 'CUI' }, { classification: null }]);
      });

      it('refuses CUI downloads from outside the policy and to users without the constraint, audited; an allowed one passes', async () => {
        const carol = await person(async (username) => {
          const response = await call('POST', '/ui/groups/edit', admin, {
            userGroupId: groupA,
            name: 'Design team',
            members: [alice.username, username],
          });
          expect(response.statusCode, response.body).toBe(200);
        });
        const cui = (
          await createFolder(admin, { parentNodeId: folderA.nodeId, folderName: 'CUI drawings', classification: 'CUI' })
        ).json<TSecureRepoNode>();
        const file = (await uploadFile(alice.token, cui.nodeId, 'part.txt', 'controlled')).json<TSecureRepoNode>();
        expect(file.classification).toBe('CUI');
        const policy = await call('POST', '/ui/access-control/add', admin, {
          policyName: 'Internal Wired',
          constraints: ['cui-download', 'cui-upload'],
          incomingIpAddresses: ['10.1.0.0/16'],
        });
        expect(policy.statusCode, policy.body).toBe(200);
        const role = await call('POST', '/ui/access-role/add', admin, {
          roleCode: 'user',
          constraintName: 'cui-download',
          roleMembers: [alice.username],
        });
        expect(role.statusCode, role.body).toBe(200);
        try {
          const far = expectToken(await downloadFrom(outside, alice.token, file.nodeId), 403, 'accessConstraintFailed');
          expect(far.errorDescription).toContain('cui-download');
          const denied = expectToken(await downloadFrom(wired, carol.token, file.nodeId), 403, 'accessConstraintFailed');
          expect(denied.errorDescription).toContain('cui-download');
          const allowed = await downloadFrom(wired, alice.token, file.nodeId);
          expect(allowed.statusCode, allowed.body).toBe(200);
          expect(allowed.body).toBe('controlled');
          const refused = await ctx()
            .app.services.database.db.selectFrom('audit_events')
            .select(['actor', 'details'])
            .where('event_type', '=', 'accessConstraintRefused')
            .where('subject', '=', 'cui-download')
            .execute();
          expect(refused.map((row) => [row.actor, JSON.parse(row.details ?? '{}').reason])).toEqual([
            [alice.username, 'network'],
            [carol.username, 'membership'],
          ]);
          expect(await audits(ctx(), 'secureRepoFileDownloaded', file.nodeId)).toEqual([
            expect.objectContaining({ actor: alice.username }),
          ]);

          // uploads into the CUI folder: cui-upload is held by no role, so only the network counts; nothing stored when refused
          const before = await storageKeys(ctx());
          expectToken(await uploadFrom(outside, alice.token, cui.nodeId, 'late.txt', 'x'), 403, 'accessConstraintFailed');
          expect(await storageKeys(ctx())).toEqual(before);
          expect((await uploadFrom(wired, carol.token, cui.nodeId, 'late.txt', 'x')).statusCode).toBe(200);
          // an unlabelled folder is not gated
          expect(
            (
              await downloadFrom(
                outside,
                carol.token,
                (await uploadFile(alice.token, folderA.nodeId, 'free.txt', 'f')).json<TSecureRepoNode>().nodeId,
              )
            ).statusCode,
          ).toBe(200);
        } finally {
          await call('POST', '/ui/access-role/delete', admin, {
            accessRoleId: role.json<{ accessRoleId: string }>().accessRoleId,
          });
          await call('POST', '/ui/access-control/delete', admin, {
            accessControlId: policy.json<{ accessControlId: string }>().accessControlId,
          });
        }
      });
    });

    it('answers groupNotPresent, not a crash, to a folder shared with a group being deleted', async () => {
      for (let round = 0; round < 6; round += 1) {
        const doomed = (
          await call('POST', '/ui/groups/add', admin, { name: `Doomed ${round}`, members: [bob.username] })
        ).json<TGroup>();
        const top = (
          await createFolder(admin, { folderName: `Shared with doomed ${round}`, groups: [doomed.userGroupId] })
        ).json<TSecureRepoNode>();
        const [deleted, created, edited] = await Promise.all([
          call('POST', '/ui/groups/delete', admin, { userGroupId: doomed.userGroupId }),
          createFolder(admin, { folderName: `Made for doomed ${round}`, groups: [doomed.userGroupId, groupB] }),
          call('POST', '/ui/secure-repo/edit-file', admin, { nodeId: top.nodeId, groups: [doomed.userGroupId] }),
        ]);
        expect(deleted.statusCode, deleted.body).toBe(200);
        // shared before the delete (which took the sharing with it), or refused after it
        for (const answer of [created, edited]) {
          if (answer.statusCode !== 200) expectToken(answer, 420, 'groupNotPresent', 'groups');
        }
        const sharing = await ctx()
          .app.services.database.db.selectFrom('secure_repo_node_groups')
          .select('node_id')
          .where('group_id', '=', doomed.userGroupId)
          .execute();
        expect(sharing).toEqual([]);
      }
    });

    it('a deleted group no longer opens its folders', async () => {
      const temporary = (
        await call('POST', '/ui/groups/add', admin, { name: 'Temporary', members: [bob.username] })
      ).json<TGroup>();
      const folder = (
        await createFolder(admin, { folderName: 'Temporary share', groups: [temporary.userGroupId] })
      ).json<TSecureRepoNode>();
      expect(names(await list(bob.token))).toContain('Temporary share');
      expect((await call('POST', '/ui/groups/delete', admin, { userGroupId: temporary.userGroupId })).statusCode).toBe(200);
      expect(names(await list(bob.token))).not.toContain('Temporary share');
      expect((await list(admin, `nodeId=${folder.nodeId}`)).json<TSecureRepoListResponse>().currentNode?.groups).toEqual([]);
    });
  },
  { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) },
);
