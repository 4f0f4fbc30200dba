import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TDsiEntry, TDsiRevision, TPackage, TPackageDetail, TPackageManifest, TWorkflowStep } from '@manifold/contract';
import { verifyDetachedJws } from '../src/crypto/jws.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import {
  createPackage,
  importTemplate,
  onePixelPng,
  provisionServer,
  templateDocument,
  uploadForm,
} from './helpers/packages-fixtures.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const uuid = '00000000-0000-4000-8000-000000000000';

async function addFile(ctx: TestApp, dsiId: string, content = 'solid part\n', isPublic = 'true') {
  const response = await uploadForm(ctx, '/ui/package/files/upload', await ctx.adminToken(), {
    dsiId,
    isPublic,
    file: { filename: 'part.stl', content, contentType: 'model/stl' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ fileId: string }>();
}

async function addStep(ctx: TestApp, body: Record<string, unknown>) {
  return ctx.call('POST', '/ui/package/workflow/add', { token: await ctx.adminToken(), body });
}

async function fetchPackage(ctx: TestApp, dsiId: string, token?: string): Promise<TPackageDetail> {
  const response = await ctx.call('GET', `/ui/package/fetch?dsiId=${dsiId}`, { token: token ?? (await ctx.adminToken()) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TPackageDetail>();
}

describeEachDatabase('design packages', (ctx) => {
  const adminOnly: [string, string, unknown][] = [
    ['POST', '/ui/package/info', { designName: 'x' }],
    ['POST', '/ui/package/delete', { dsiId: uuid }],
    ['POST', '/ui/package/build', { dsiId: uuid }],
    ['POST', '/ui/package/workflow/add', { dsiId: uuid, type: 'manual', instructions: 'x' }],
    ['POST', '/ui/package/workflow/edit', { dsiId: uuid, workflowStepId: uuid }],
    ['POST', '/ui/package/workflow/delete', { dsiId: uuid, workflowStepId: uuid }],
    ['POST', '/ui/package/workflow/reorder', { dsiId: uuid, stepIds: [] }],
    ['POST', '/ui/package/files/upload', undefined],
    ['POST', '/ui/package/files/privacy', { fileId: uuid, isPublic: true }],
    ['POST', '/ui/package/files/delete', { fileId: uuid }],
    ['POST', '/ui/package/device-template/import', undefined],
    ['POST', '/ui/package/device-template/delete', { deviceTemplateId: uuid }],
    ['GET', '/ui/das/list', undefined],
    ['GET', `/ui/das/fetch?revisionId=${uuid}`, undefined],
  ];
  const anyRole: [string, string][] = [
    ['GET', '/ui/package/list'],
    ['GET', `/ui/package/fetch?dsiId=${uuid}`],
    ['GET', `/ui/package/files/download?fileId=${uuid}`],
    ['GET', '/ui/package/device-template/schema'],
    ['GET', '/ui/package/device-template/list'],
    ['GET', `/ui/package/device-template/fetch?deviceTemplateId=${uuid}`],
    ['GET', `/ui/package/image/${'a'.repeat(32)}.png`],
  ];

  describe('every package endpoint', () => {
    it('should require authentication', async () => {
      for (const [method, url, body] of [...adminOnly, ...anyRole.map(([m, u]) => [m, u, undefined] as const)]) {
        const response = await ctx().call(method as 'GET' | 'POST', url, body ? { body } : {});
        expectToken(response, 401, 'invalidSessionToken');
      }
    });

    it('keeps changes, builds and the design archive for ADMIN', async () => {
      const { token } = await ctx().createUser();
      for (const [method, url, body] of adminOnly) {
        expectToken(
          await ctx().call(method as 'GET' | 'POST', url, { token, ...(body ? { body } : {}) }),
          403,
          'actionNotAllowed',
        );
      }
    });

    it('lets a USER read packages and templates', async () => {
      const { token } = await ctx().createUser();
      const pkg = await createPackage(ctx());
      expect((await ctx().call('GET', '/ui/package/list', { token })).statusCode).toBe(200);
      expect((await fetchPackage(ctx(), pkg.dsiId, token)).dsiId).toBe(pkg.dsiId);
      expect((await ctx().call('GET', '/ui/package/device-template/list', { token })).statusCode).toBe(200);
    });
  });

  describe('POST /ui/package/info', () => {
    it('creates a package at version 1 with an audit record', async () => {
      const pkg = await createPackage(ctx(), { designName: '  Gear housing ', multiPlaten: true });
      expect(pkg).toMatchObject({
        designName: 'Gear housing',
        companyName: 'Acme',
        multiPlaten: true,
        version: 1,
        displayImage: null,
        latestDsiVersion: null,
        createdBy: 'admin',
      });
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .selectAll()
        .where('event_type', '=', 'designPackageCreated')
        .where('subject', '=', pkg.dsiId)
        .execute();
      expect(audit).toHaveLength(1);
    });

    it('refuses an empty design name', async () => {
      const token = await ctx().adminToken();
      expectToken(
        await ctx().call('POST', '/ui/package/info', { token, body: { designName: '   ' } }),
        420,
        'packageDesignNameEmpty',
      );
      const pkg = await createPackage(ctx());
      expectToken(
        await ctx().call('POST', '/ui/package/info', { token, body: { dsiId: pkg.dsiId, version: 1, designName: '' } }),
        420,
        'packageDesignNameEmpty',
      );
    });

    it('updates with the version read and refuses a stale version without changing anything', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx(), { description: 'first' });
      const first = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { dsiId: pkg.dsiId, version: 1, description: 'second editor wins the race' },
      });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json<TPackage>()).toMatchObject({
        version: 2,
        description: 'second editor wins the race',
        designName: pkg.designName,
      });
      const stale = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { dsiId: pkg.dsiId, version: 1, description: 'stale overwrite' },
      });
      const error = expectToken(stale, 420, 'packageVersionConflict');
      expect(error.field).toBe('version');
      expect((await fetchPackage(ctx(), pkg.dsiId)).description).toBe('second editor wins the race');
    });

    it('needs the version on update and an existing package', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx());
      expectToken(
        await ctx().call('POST', '/ui/package/info', { token, body: { dsiId: pkg.dsiId, description: 'x' } }),
        420,
        'packageVersionRequired',
      );
      expectToken(
        await ctx().call('POST', '/ui/package/info', { token, body: { dsiId: uuid, version: 1, description: 'x' } }),
        420,
        'packageNotPresent',
      );
    });

    it('stores a display image from a data URL, serves it, and refuses anything else', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx(), { displayImage: `data:image/png;base64,${onePixelPng.toString('base64')}` });
      expect(pkg.displayImage).toMatch(/^[a-f0-9]{32}\.png$/);
      const image = await ctx().call('GET', `/ui/package/image/${pkg.displayImage}`, { token });
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.rawPayload.equals(onePixelPng)).toBe(true);
      const fake = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { dsiId: pkg.dsiId, version: 1, displayImage: 'data:image/png;base64,aGVsbG8=' },
      });
      expectToken(fake, 420, 'imageTypeNotSupported');
      const path = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { dsiId: pkg.dsiId, version: 1, displayImage: '../../etc/passwd' },
      });
      expectToken(path, 420, 'packageDisplayImageInvalid');
      const cleared = await ctx().call('POST', '/ui/package/info', {
        token,
        body: { dsiId: pkg.dsiId, version: 1, displayImage: null },
      });
      expect(cleared.json<TPackage>().displayImage).toBeNull();
      expect((await ctx().call('GET', `/ui/package/image/${pkg.displayImage}`, { token })).statusCode).toBe(404);
    });
  });

  describe('GET /ui/package/list', () => {
    it('pages in the database and filters by name, case-insensitively', async () => {
      const tag = Math.random().toString(36).slice(2, 8);
      for (const name of [`Alpha ${tag}`, `beta ${tag}`, `Gamma ${tag}`]) await createPackage(ctx(), { designName: name });
      const token = await ctx().adminToken();
      const page = await ctx().call('GET', `/ui/package/list?name=${tag.toUpperCase()}&numberOfItems=2&pageNum=2`, { token });
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json()).toMatchObject({ pageNum: 2, numberOfItems: 2, totalNumOfItems: 3, totalNumOfPages: 2 });
      expect(page.json<{ data: TPackage[] }>().data.map((p) => p.designName)).toEqual([`Gamma ${tag}`]);
      expect(
        (await ctx().call('GET', '/ui/package/list?name=100%25_', { token })).json<{ totalNumOfItems: number }>().totalNumOfItems,
      ).toBe(0);
    });
  });

  describe('workflow steps', () => {
    it('adds manual and device steps, edits, deletes and renumbers', async () => {
      const pkg = await createPackage(ctx());
      const template = (await importTemplate(ctx(), templateDocument(), pkg.dsiId)).json<{ deviceTemplateId: string }>();
      const manual = (
        await addStep(ctx(), { dsiId: pkg.dsiId, type: 'manual', name: 'Clean bed', instructions: 'Wipe the bed with IPA' })
      ).json<TWorkflowStep>();
      const device = await addStep(ctx(), {
        dsiId: pkg.dsiId,
        type: 'device',
        name: 'Print',
        deviceTemplateId: template.deviceTemplateId,
      });
      expect(device.statusCode, device.body).toBe(200);
      expect(device.json<TWorkflowStep>()).toMatchObject({
        position: 2,
        type: 'device',
        deviceTemplateId: template.deviceTemplateId,
      });
      const edited = await ctx().call('POST', '/ui/package/workflow/edit', {
        token: await ctx().adminToken(),
        body: { dsiId: pkg.dsiId, workflowStepId: manual.workflowStepId, instructions: 'Wipe with isopropyl alcohol' },
      });
      expect(edited.json<TWorkflowStep>()).toMatchObject({
        name: 'Clean bed',
        instructions: 'Wipe with isopropyl alcohol',
        position: 1,
      });
      const deleted = await ctx().call('POST', '/ui/package/workflow/delete', {
        token: await ctx().adminToken(),
        body: { dsiId: pkg.dsiId, workflowStepId: manual.workflowStepId },
      });
      expect(deleted.json<{ data: TWorkflowStep[] }>().data.map((s) => [s.name, s.position])).toEqual([['Print', 1]]);
    });

    it('answers the step tokens', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx());
      const other = await createPackage(ctx());
      const foreign = (await importTemplate(ctx(), templateDocument(), other.dsiId)).json<{ deviceTemplateId: string }>();
      expectToken(await addStep(ctx(), { dsiId: uuid, type: 'manual', instructions: 'x' }), 420, 'packageNotPresent');
      expectToken(
        await addStep(ctx(), { dsiId: pkg.dsiId, type: 'manual', instructions: ' ' }),
        420,
        'workflowStepInstructionsEmpty',
      );
      expectToken(await addStep(ctx(), { dsiId: pkg.dsiId, type: 'device' }), 420, 'workflowStepDeviceTemplateRequired');
      expectToken(
        await addStep(ctx(), { dsiId: pkg.dsiId, type: 'device', deviceTemplateId: uuid }),
        420,
        'deviceTemplateNotPresent',
      );
      expectToken(
        await addStep(ctx(), { dsiId: pkg.dsiId, type: 'device', deviceTemplateId: foreign.deviceTemplateId }),
        420,
        'deviceTemplateNotPresent',
      );
      expect((await addStep(ctx(), { dsiId: pkg.dsiId, type: 'banana', instructions: 'x' })).statusCode).toBe(400);
      expectToken(
        await ctx().call('POST', '/ui/package/workflow/edit', { token, body: { dsiId: pkg.dsiId, workflowStepId: uuid } }),
        420,
        'workflowStepNotPresent',
      );
      expectToken(
        await ctx().call('POST', '/ui/package/workflow/delete', { token, body: { dsiId: pkg.dsiId, workflowStepId: uuid } }),
        420,
        'workflowStepNotPresent',
      );
    });

    it('reorders with exactly the package steps and refuses any other set', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx());
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) {
        ids.push(
          (await addStep(ctx(), { dsiId: pkg.dsiId, type: 'manual', name, instructions: name })).json<TWorkflowStep>()
            .workflowStepId,
        );
      }
      const reorder = (stepIds: string[]) =>
        ctx().call('POST', '/ui/package/workflow/reorder', { token, body: { dsiId: pkg.dsiId, stepIds } });
      const [a, b, c] = ids as [string, string, string];
      const done = await reorder([c, a, b]);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json<{ data: TWorkflowStep[] }>().data.map((s) => s.name)).toEqual(['three', 'one', 'two']);
      for (const wrong of [
        [a, b],
        [a, b, c, uuid],
        [a, a, b],
        [a, b, uuid],
      ]) {
        expectToken(await reorder(wrong), 420, 'workflowStepIdsMismatch');
      }
      expect((await fetchPackage(ctx(), pkg.dsiId)).steps.map((s) => s.name)).toEqual(['three', 'one', 'two']);
    });
  });

  describe('POST /ui/package/delete', () => {
    it('deletes a package with its files, steps and templates, and their stored objects', async () => {
      const pkg = await createPackage(ctx());
      await addFile(ctx(), pkg.dsiId);
      await addStep(ctx(), { dsiId: pkg.dsiId, type: 'manual', instructions: 'x' });
      await importTemplate(ctx(), templateDocument(), pkg.dsiId);
      const { db } = ctx().app.services.database;
      const [file] = await db.selectFrom('package_files').select('storage_key').where('package_id', '=', pkg.dsiId).execute();
      const response = await ctx().call('POST', '/ui/package/delete', {
        token: await ctx().adminToken(),
        body: { dsiId: pkg.dsiId },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(await db.selectFrom('packages').select('id').where('id', '=', pkg.dsiId).execute()).toHaveLength(0);
      expect(await db.selectFrom('device_templates').select('id').where('package_id', '=', pkg.dsiId).execute()).toHaveLength(0);
      expect(await ctx().app.services.storage.exists(file!.storage_key)).toBe(false);
      expectToken(
        await ctx().call('POST', '/ui/package/delete', { token: await ctx().adminToken(), body: { dsiId: pkg.dsiId } }),
        420,
        'packageNotPresent',
      );
    });

    it('is refused while an order refers to the package', async () => {
      const pkg = await createPackage(ctx());
      const { db } = ctx().app.services.database;
      await db
        .insertInto('entity_references')
        .values({
          target_kind: 'package',
          target_id: pkg.dsiId,
          referrer_kind: 'order',
          referrer_id: 'order-1',
          expires_at: null,
          released_at: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      expectToken(
        await ctx().call('POST', '/ui/package/delete', { token: await ctx().adminToken(), body: { dsiId: pkg.dsiId } }),
        420,
        'packageReferencedByOrders',
      );
      expect(await db.selectFrom('packages').select('id').where('id', '=', pkg.dsiId).execute()).toHaveLength(1);
    });
  });

  describe('POST /ui/package/build', () => {
    it('answers provisionNotInitialized before the server has a signing certificate', async () => {
      const pkg = await createPackage(ctx());
      await addFile(ctx(), pkg.dsiId);
      expectToken(
        await ctx().call('POST', '/ui/package/build', { token: await ctx().adminToken(), body: { dsiId: pkg.dsiId } }),
        420,
        'provisionNotInitialized',
      );
    });

    it('freezes files, steps and templates into a signed revision listed in the design archive', async () => {
      const { signingCertificatePem } = await provisionServer(ctx());
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx(), { displayImage: `data:image/png;base64,${onePixelPng.toString('base64')}` });
      expectToken(await ctx().call('POST', '/ui/package/build', { token, body: { dsiId: pkg.dsiId } }), 420, 'packageHasNoFiles');
      expectToken(await ctx().call('POST', '/ui/package/build', { token, body: { dsiId: uuid } }), 420, 'packageNotPresent');
      const file = await addFile(ctx(), pkg.dsiId, 'first body');
      const template = (await importTemplate(ctx(), templateDocument(), pkg.dsiId)).json<{
        deviceTemplateId: string;
        sha256: string;
      }>();
      await addStep(ctx(), { dsiId: pkg.dsiId, type: 'device', name: 'Print', deviceTemplateId: template.deviceTemplateId });

      const built = await ctx().call('POST', '/ui/package/build', { token, body: { dsiId: pkg.dsiId } });
      expect(built.statusCode, built.body).toBe(200);
      const entry = built.json<TDsiEntry>();
      expect(entry).toMatchObject({
        version: 1,
        dsiVersion: 1,
        dsiId: pkg.dsiId,
        designName: pkg.designName,
        companyName: 'Acme',
        keyRoleSN: null,
        protectUserName: null,
        dsi_url: null,
        displayImage: pkg.displayImage,
        image_url: `${ctx().config.publicUrl}/ui/package/image/${pkg.displayImage}`,
        manage_url: ctx().config.publicUrl,
        digestMethod: 'SHA-256',
      });

      const revision = (await ctx().call('GET', `/ui/das/fetch?revisionId=${entry.revisionId}`, { token })).json<TDsiRevision>();
      expect(createHash('sha256').update(revision.manifest).digest('hex')).toBe(entry.digestValue);
      const verified = await verifyDetachedJws(entry.signature, revision.manifest, signingCertificatePem);
      expect(verified.protectedHeader.alg).toBe('ES256');
      const manifest = JSON.parse(revision.manifest) as TPackageManifest;
      expect(canonicalJson(manifest)).toBe(revision.manifest);
      expect(manifest.files).toEqual([
        expect.objectContaining({
          fileId: file.fileId,
          fileName: 'part.stl',
          size: 10,
          sha256: createHash('sha256').update('first body').digest('hex'),
          isPublic: true,
        }),
      ]);
      expect(manifest.steps).toEqual([
        expect.objectContaining({ type: 'device', deviceTemplateId: template.deviceTemplateId, position: 1 }),
      ]);
      expect(manifest.deviceTemplates).toEqual([
        expect.objectContaining({ deviceTemplateId: template.deviceTemplateId, sha256: template.sha256 }),
      ]);
      expect(entry.publicKeySN).toMatch(/^[0-9A-F]+$/);

      // The revision keeps the stored object of a file deleted afterwards.
      const { db } = ctx().app.services.database;
      const [stored] = await db.selectFrom('package_files').select('storage_key').where('id', '=', file.fileId).execute();
      expect((await ctx().call('POST', '/ui/package/files/delete', { token, body: { fileId: file.fileId } })).statusCode).toBe(
        200,
      );
      expect(await ctx().app.services.storage.exists(stored!.storage_key)).toBe(true);
      await addFile(ctx(), pkg.dsiId, 'second body');
      const second = (await ctx().call('POST', '/ui/package/build', { token, body: { dsiId: pkg.dsiId } })).json<TDsiEntry>();
      expect(second.dsiVersion).toBe(2);
      expect(second.digestValue).not.toBe(entry.digestValue);

      const archive = await ctx().call('GET', `/ui/das/list?dsiId=${pkg.dsiId}&numberOfItems=1`, { token });
      expect(archive.json()).toMatchObject({ totalNumOfItems: 2, totalNumOfPages: 2, pageNum: 1 });
      expect(archive.json<{ data: TDsiEntry[] }>().data[0]!.dsiVersion).toBe(2);
      const detail = await fetchPackage(ctx(), pkg.dsiId);
      expect(detail.latestDsiVersion).toBe(2);
      expect(detail.revisions.map((r) => r.dsiVersion)).toEqual([2, 1]);
      const audit = await db
        .selectFrom('audit_events')
        .select('event_type')
        .where('event_type', '=', 'designPackageBuilt')
        .where('subject', '=', pkg.dsiId)
        .execute();
      expect(audit).toHaveLength(2);
      expect((await ctx().call('GET', `/ui/das/fetch?revisionId=${uuid}`, { token })).statusCode).toBe(404);
    });
  });
});
