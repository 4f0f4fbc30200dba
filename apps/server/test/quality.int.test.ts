import zlib from 'node:zlib';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TInspection, TPart, TQualitySearchResponse, TQualityParameter, TSvpTemplate, TSvpValue } from '@manifold/contract';
import { jobsModule } from '../src/jobs/jobs.module.js';
import { STORAGE_SWEEP } from '../src/jobs/storage-sweep.js';
import { SERVER_CHAIN_ID } from '../src/modules/events/trace-event-format.js';
import {
  addOrder,
  licensingWorld,
  type LicensingWorld,
  policyFor,
  registerApprovedMachine,
} from './helpers/licensing-fixtures.js';
import { type FormFile, multipartEntries, multipartForm } from './helpers/multipart.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';
import { finishParameter as finish, heightParameter as height } from './helpers/quality-fixtures.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The smallest PNG: a 1×1 transparent pixel. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describeEachDatabase('quality: inspections, parts search, trace parameters', (ctx) => {
  let world: LicensingWorld;
  let admin: string;
  let user: string;
  /** Order A (Acme Parts, quality parameters, serial numbers): build a1 of three parts on machine A. */
  let a: { deviceId: string; buildId: string; parts: TPart[]; orderId: string };
  /** Order B (Beta Works, no quality parameters): build b1 of two parts on machine B, and a failed job. */
  let b: { deviceId: string; buildId: string; parts: TPart[]; failedPart: TPart };

  const db = () => ctx().app.services.database.db;

  const made = async (
    company: string,
    overrides: object,
    jobs: { jobId: string; quantity: number; end: 'jobEnded' | 'jobFailed' }[],
    extra: Record<string, unknown> = {},
  ) => {
    const chain = new MachineChain(await registerApprovedMachine(ctx(), world.root));
    const orderId = await addOrder(ctx(), policyFor(world, { quantity: 20, companyName: company, ...overrides }));
    const authorizationId = await grantAuthorization(ctx(), orderId, chain.world.deviceId, 10, { extra });
    for (const job of jobs) {
      for (const event of [
        chain.next('jobStarted', { authorizationId, jobId: job.jobId, quantity: job.quantity }),
        chain.next(job.end, { authorizationId, jobId: job.jobId }),
      ]) {
        const response = await chain.sendStp(ctx(), event);
        expect(response.statusCode, response.body).toBe(200);
      }
    }
    const listed = await ctx().call('GET', `/ui/part/list?numberOfItems=100`, { token: admin });
    const parts = listed.json<{ data: TPart[] }>().data.filter((part) => part.authorizationId === authorizationId);
    return { deviceId: chain.world.deviceId, orderId, parts };
  };

  const inspect = (body: object, pictures: FormFile[] = [], token = user) => {
    const form = multipartEntries([
      ['inspection', JSON.stringify(body)],
      ...pictures.map((picture): [string, FormFile] => ['picture', picture]),
    ]);
    return ctx().app.inject({
      method: 'POST',
      url: '/ui/qms/inspection',
      headers: { ...form.headers, authorization: `Bearer ${token}` },
      payload: form.body,
    });
  };

  const search = async (body: object = {}) => {
    const response = await ctx().call('POST', '/ui/qms/parts/search', { token: user, body });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TQualitySearchResponse>();
  };

  const partRow = (id: string) =>
    db()
      .selectFrom('parts')
      .select(['qms_state', 'inspection_result', 'technician', 'failure_reason'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    world = await licensingWorld(ctx());
    admin = await ctx().adminToken();
    user = (await ctx().createUser()).token;
    const madeA = await made(
      'Acme Parts',
      { qualityParameters: [height, finish], serialization: { type: 'Dec', prefix: 'Q-', start: 1, end: 99 } },
      [{ jobId: 'a1', quantity: 3, end: 'jobEnded' }],
      // the order requires a height: the authorization carries the nominal one, the inspection the measured one
      { qualityParameters: [{ ...height, valueList: [11] }] },
    );
    a = {
      ...madeA,
      buildId: madeA.parts[0]!.buildId,
      parts: madeA.parts.sort((x, y) => (x.serialNumber ?? '').localeCompare(y.serialNumber ?? '')),
    };
    const madeB = await made('Beta Works', {}, [
      { jobId: 'b1', quantity: 2, end: 'jobEnded' },
      { jobId: 'b2', quantity: 1, end: 'jobFailed' },
    ]);
    const ended = madeB.parts.filter((part) => part.jobId === 'b1');
    b = {
      deviceId: madeB.deviceId,
      buildId: ended[0]!.buildId,
      parts: ended,
      failedPart: madeB.parts.find((part) => part.jobId === 'b2')!,
    };
  });

  describe('sessions and roles', () => {
    const calls: ['GET' | 'POST', string][] = [
      ['GET', '/ui/qms/inspection'],
      ['POST', '/ui/qms/inspection'],
      ['GET', `/ui/qms/inspection/picture?inspectionId=${randomUUID()}&index=0`],
      ['GET', `/ui/qms/inspection/parameters?partId=${randomUUID()}`],
      ['POST', '/ui/qms/parts/search'],
      ['POST', '/ui/svp-type/add'],
      ['GET', '/ui/svp-type/list'],
      ['POST', '/ui/svp/add'],
      ['POST', '/ui/svp/edit'],
      ['POST', '/ui/svp/delete'],
      ['GET', '/ui/svp/list'],
      ['POST', '/ui/svp-value/manual/add'],
      ['POST', '/ui/svp-value/manual/edit'],
      ['POST', '/ui/svp-value/file/add'],
      ['POST', '/ui/svp-value/file/edit'],
      ['GET', `/ui/svp-value/file?id=${randomUUID()}`],
      ['POST', '/ui/svp-value/delete'],
      ['GET', '/ui/svp-value/list'],
    ];

    it('answers 401 without a session on every call', async () => {
      for (const [method, url] of calls) {
        expectToken(await ctx().call(method, url, method === 'POST' ? { body: {} } : {}), 401, 'invalidSessionToken');
      }
    });

    it('answers 403 to a USER on the type and template changes', async () => {
      for (const url of ['/ui/svp-type/add', '/ui/svp/add', '/ui/svp/edit', '/ui/svp/delete']) {
        expectToken(await ctx().call('POST', url, { token: user, body: {} }), 403, 'actionNotAllowed');
      }
    });

    it('answers 501 functionNotImplemented to the calls the spec leaves unimplemented', async () => {
      for (const url of ['/ui/qms/search', '/ui/qms/parts/list', '/ui/qms/data', '/ui/qms/failed', '/ui/qms/results']) {
        expectToken(await ctx().call('GET', url, { token: user }), 501, 'functionNotImplemented');
      }
      expectToken(await ctx().call('POST', '/ui/qms/parts/entry', { token: user, body: {} }), 501, 'functionNotImplemented');
    });
  });

  describe('POST /ui/qms/inspection', () => {
    it('tells the form what a part or a build is inspected for', async () => {
      const forPart = await ctx().call('GET', `/ui/qms/inspection/parameters?partId=${a.parts[0]!.id}`, { token: user });
      expect(forPart.statusCode, forPart.body).toBe(200);
      const target = forPart.json<{ buildId: string; parts: unknown[]; qualityParameters: TQualityParameter[] }>();
      expect(target.buildId).toBe(a.buildId);
      expect(target.parts).toEqual([
        { partId: a.parts[0]!.id, serialNumber: a.parts[0]!.serialNumber, partQmsState: 'MANUFACTURED' },
      ]);
      expect(target.qualityParameters.map((p) => [p.id, p.low, p.high])).toEqual([
        ['finish', undefined, undefined],
        ['height', 10, 12],
      ]);
      const forBuild = await ctx().call('GET', `/ui/qms/inspection/parameters?buildId=${b.buildId}`, { token: user });
      expect(forBuild.json<{ parts: unknown[]; qualityParameters: unknown[] }>()).toMatchObject({ qualityParameters: [] });
      expect(forBuild.json<{ parts: unknown[] }>().parts).toHaveLength(2);
      expectToken(
        await ctx().call('GET', `/ui/qms/inspection/parameters?partId=${b.failedPart.id}`, { token: user }),
        420,
        'partNotInspectable',
      );
    });

    it('refuses a value out of range on its field, and records nothing', async () => {
      const part = a.parts[0]!;
      const response = await inspect({
        partId: part.id,
        result: 'failed',
        reason: 'warped',
        technician: 'Grace',
        qualityParameters: [{ id: 'height', values: [12.5] }],
      });
      expectToken(response, 420, 'valueOutOfRange', 'qualityParameters.height.values[0]');
      expect(await partRow(part.id)).toMatchObject({ qms_state: 'MANUFACTURED', inspection_result: null });
      expect(await db().selectFrom('quality_inspections').select('id').execute()).toEqual([]);
    });

    it('holds the inspection field to what a JSON body is held to: no NUL, no character XML cannot carry', async () => {
      const part = a.parts[0]!;
      const body = {
        partId: part.id,
        result: 'passed',
        technician: 'Grace',
        qualityParameters: [{ id: 'height', values: [11] }],
      };
      // escaped in the field's JSON text, so only the parsed inspection holds them (PostgreSQL refused the NUL with a 500)
      const nul = expectToken(await inspect({ ...body, technician: 'Gr\u0000ace' }), 400, 'malformedRequest');
      expect(nul.errorDescription).toBe('inspection.technician contains a NUL character');
      expectToken(await inspect({ ...body, notes: 'bell \u0007' }), 420, 'invalidCharacters', 'inspection.notes');
      expect(await partRow(part.id)).toMatchObject({ qms_state: 'MANUFACTURED', inspection_result: null });
      expect(await db().selectFrom('quality_inspections').select('id').execute()).toEqual([]);
    });

    it('answers every value problem at once', async () => {
      const tokens = expectTokens(
        await inspect({
          partId: a.parts[0]!.id,
          result: 'passed',
          technician: 'Grace',
          qualityParameters: [
            { id: 'finish', values: ['rough'] },
            { id: 'weight', values: [3] },
          ],
        }),
      );
      expect(tokens.map((t) => [t.errorToken, t.field])).toEqual([
        ['valueNotFoundInChoiceList', 'qualityParameters.finish.values[0]'],
        ['valueRequired', 'qualityParameters.height.values'],
        ['invalidValueFormat', 'qualityParameters.weight'],
      ]);
    });

    it('refuses a wrong target, a failure without reason, and a part its job failed', async () => {
      const base = { result: 'passed', technician: 'Grace', qualityParameters: [{ id: 'height', values: [11] }] };
      expectToken(await inspect({ ...base }), 420, 'inspectionTargetInvalid');
      expectToken(await inspect({ ...base, partId: a.parts[0]!.id, buildId: a.buildId }), 420, 'inspectionTargetInvalid');
      expectToken(await inspect({ ...base, partId: randomUUID() }), 420, 'partNotPresent', 'partId');
      expectToken(await inspect({ ...base, partId: 'not-a-part' }), 420, 'partNotPresent', 'partId');
      expectToken(await inspect({ ...base, buildId: randomUUID() }), 420, 'buildNotPresent', 'buildId');
      expectToken(
        await inspect({ ...base, partId: a.parts[0]!.id, result: 'failed' }),
        420,
        'inspectionReasonRequired',
        'reason',
      );
      expectToken(await inspect({ result: 'passed', technician: 'Grace', partId: b.failedPart.id }), 420, 'partNotInspectable');
      expectToken(await inspect({ ...base, partId: a.parts[0]!.id, technician: '' }), 400, 'malformedRequest');
    });

    it('refuses a picture that is not an image and pictures before the inspection field', async () => {
      const body = {
        partId: a.parts[0]!.id,
        result: 'passed',
        technician: 'Grace',
        qualityParameters: [{ id: 'height', values: [11] }],
      };
      expectToken(
        await inspect(body, [{ filename: 'x.txt', content: 'hello', contentType: 'text/plain' }]),
        420,
        'imageTypeNotSupported',
      );
      const form = multipartEntries([
        ['picture', { filename: 'p.png', content: png, contentType: 'image/png' }],
        ['inspection', JSON.stringify(body)],
      ]);
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/ui/qms/inspection',
        headers: { ...form.headers, authorization: `Bearer ${user}` },
        payload: form.body,
      });
      expectToken(response, 420, 'inspectionFieldsFirst');
      expect(await db().selectFrom('quality_inspections').select('id').execute()).toEqual([]);
    });

    it('passes a part: its state, its latest inspection, a quality check event on the server chain, the audit and the picture', async () => {
      const part = a.parts[0]!;
      const response = await inspect(
        {
          partId: part.id,
          result: 'passed',
          technician: 'Grace',
          notes: 'clean',
          qualityParameters: [
            { id: 'height', values: [11.2] },
            { id: 'finish', values: ['matte'] },
          ],
        },
        [{ filename: 'top.png', content: png, contentType: 'image/png' }],
      );
      expect(response.statusCode, response.body).toBe(200);
      const [inspection] = response.json<{ data: TInspection[] }>().data;
      expect(inspection).toMatchObject({
        partId: part.id,
        buildId: a.buildId,
        serialNumber: part.serialNumber,
        result: 'passed',
        reason: null,
        technician: 'Grace',
        notes: 'clean',
        partQmsState: 'MANUFACTURED',
        pictures: [
          {
            index: 0,
            fileName: 'top.png',
            contentType: 'image/png',
            size: png.length,
            sha256: createHash('sha256').update(png).digest('hex'),
          },
        ],
      });
      expect(await partRow(part.id)).toEqual({
        qms_state: 'MANUFACTURED',
        inspection_result: 'passed',
        technician: 'Grace',
        failure_reason: null,
      });

      const event = await db()
        .selectFrom('trace_events')
        .selectAll()
        .where('event_id', '=', inspection!.traceEventId)
        .executeTakeFirstOrThrow();
      expect(event).toMatchObject({
        kind: 'qualityCheckPassed',
        device_id: SERVER_CHAIN_ID,
        source: 'server',
        sequence: 1,
        previous_hash: null,
        chain_finding: null,
        authorization_id: part.authorizationId,
        job_id: 'a1',
        order_id: a.orderId,
      });
      expect(JSON.parse(event.data)).toEqual({
        inspectionId: inspection!.inspectionId,
        partId: part.id,
        serialNumber: part.serialNumber,
        technician: 'Grace',
      });
      const audit = await db().selectFrom('audit_events').selectAll().where('event_type', '=', 'qualityCheckPassed').execute();
      expect(audit.map((row) => [row.actor, row.subject])).toContainEqual([expect.any(String), a.orderId]);

      const listed = await ctx().call('GET', `/ui/part/list?serialNumber=${part.serialNumber}`, { token: admin });
      // the machine's events of the job (its chain's order), then the inspection's (sequence 1 on the server's chain)
      const traceEvents = listed.json<{ data: TPart[] }>().data[0]!.traceEvents;
      expect(traceEvents.length).toBeGreaterThan(1);
      expect(traceEvents.at(-1)).toBe(inspection!.traceEventId);
      // the part's history shows the inspection's event after the machine's, and no other part's
      const history = await ctx().call('GET', `/ui/part/history?partId=${part.id}`, { token: admin });
      const events = history.json<{ events: { eventId: string; event: { kind: string } }[] }>().events;
      expect(events.filter((entry) => entry.event.kind.startsWith('qualityCheck')).map((entry) => entry.eventId)).toEqual([
        inspection!.traceEventId,
      ]);
      expect(events.at(-1)!.eventId).toBe(inspection!.traceEventId);
      const other = await ctx().call('GET', `/ui/part/history?partId=${a.parts[1]!.id}`, { token: admin });
      expect(
        other
          .json<{ events: { event: { kind: string } }[] }>()
          .events.filter((entry) => entry.event.kind.startsWith('qualityCheck')),
      ).toEqual([]);

      const picture = await ctx().call('GET', `/ui/qms/inspection/picture?inspectionId=${inspection!.inspectionId}&index=0`, {
        token: user,
      });
      expect(picture.statusCode).toBe(200);
      expect(picture.rawPayload.equals(png)).toBe(true);
      expectToken(
        await ctx().call('GET', `/ui/qms/inspection/picture?inspectionId=${inspection!.inspectionId}&index=1`, { token: user }),
        404,
        'entityDoesNotExist',
      );
    });

    it('fails a part (FAILURE), chaining its event after the first', async () => {
      const part = a.parts[1]!;
      const response = await inspect({
        partId: part.id,
        result: 'failed',
        reason: 'warped',
        technician: 'Alan',
        qualityParameters: [{ id: 'height', values: [10.5] }],
      });
      expect(response.statusCode, response.body).toBe(200);
      const [inspection] = response.json<{ data: TInspection[] }>().data;
      expect(inspection!.partQmsState).toBe('FAILURE');
      expect(await partRow(part.id)).toEqual({
        qms_state: 'FAILURE',
        inspection_result: 'failed',
        technician: 'Alan',
        failure_reason: 'warped',
      });
      const chain = await db()
        .selectFrom('trace_events')
        .select(['sequence', 'event_hash', 'previous_hash', 'kind'])
        .where('device_id', '=', SERVER_CHAIN_ID)
        .orderBy('sequence')
        .execute();
      expect(chain.map((row) => row.kind)).toEqual(['qualityCheckPassed', 'qualityCheckFailed']);
      expect(chain[1]!.previous_hash).toBe(chain[0]!.event_hash);
      expect(chain[1]!.sequence).toBe(2);
    });

    it('inspects every part of a build, and lists inspections by part and build', async () => {
      const response = await inspect({ buildId: b.buildId, result: 'passed', technician: 'Grace' });
      expect(response.statusCode, response.body).toBe(200);
      const inspections = response.json<{ data: TInspection[] }>().data;
      expect(inspections.map((i) => i.partId).sort()).toEqual(b.parts.map((p) => p.id).sort());
      for (const part of b.parts) expect((await partRow(part.id)).qms_state).toBe('MANUFACTURED');

      const byBuild = await ctx().call('GET', `/ui/qms/inspection?buildId=${b.buildId}`, { token: user });
      expect(byBuild.json<{ totalNumOfItems: number }>().totalNumOfItems).toBe(2);
      const byPart = await ctx().call('GET', `/ui/qms/inspection?partId=${a.parts[1]!.id}`, { token: user });
      expect(byPart.json<{ data: TInspection[] }>().data.map((i) => [i.result, i.reason])).toEqual([['failed', 'warped']]);
    });
  });

  describe('POST /ui/qms/parts/search', () => {
    it('counts what was inspected (hand-counted: A passed 1 failed 1, B passed 2)', async () => {
      const found = await search();
      expect(found.statistics).toMatchObject({ inspected: 4, passed: 3, failed: 1, passRate: 0.75 });
      expect(found.statistics.failuresByReason).toEqual([{ reason: 'warped', failed: 1 }]);
      const machines = Object.fromEntries(found.statistics.byMachine.map((g) => [g.key, [g.passed, g.failed]]));
      expect(machines).toEqual({ [a.deviceId]: [1, 1], [b.deviceId]: [2, 0] });
      expect(found.statistics.byMachine[0]!.key).toBe(a.deviceId); // most failures first
      expect(found.statistics.bySupplier.map((g) => [g.key, g.passed, g.failed])).toEqual([
        ['Acme Parts', 1, 1],
        ['Beta Works', 2, 0],
      ]);
      expect(found.statistics.byDesign.map((g) => [g.key, g.label, g.passed, g.failed])).toEqual([
        [world.revision.dsiId, world.revision.designName, 3, 1],
      ]);
      const today = new Date().toISOString().slice(0, 10);
      expect(found.statistics.overTime).toEqual([{ day: today, passed: 3, failed: 1 }]);
      expect(found.passed.totalNumOfItems).toBe(3);
      expect(found.failed.data.map((p) => [p.partId, p.reason, p.technician, p.supplier, p.serialNumber])).toEqual([
        [a.parts[1]!.id, 'warped', 'Alan', 'Acme Parts', a.parts[1]!.serialNumber],
      ]);
      expect(found.failed.data[0]!.qualityParameters).toEqual([{ id: 'height', values: [10.5] }]);
    });

    it('filters by supplier, machine, design, serial number, state, technician and days, and says so', async () => {
      const beta = await search({ supplier: 'Beta Works' });
      expect([beta.statistics.passed, beta.statistics.failed, beta.failed.totalNumOfItems]).toEqual([2, 0, 0]);
      expect(beta.filtering).toMatchObject({ supplier: 'Beta Works', sortBy: 'inspectedAt', sortOrder: 'desc' });
      expect((await search({ deviceId: a.deviceId })).statistics.inspected).toBe(2);
      expect((await search({ dsiId: world.revision.dsiId })).statistics.inspected).toBe(4);
      const serial = await search({ serialNumber: a.parts[0]!.serialNumber });
      expect(serial.passed.data.map((p) => p.partId)).toEqual([a.parts[0]!.id]);
      const failedOnly = await search({ state: 'failed' });
      expect([failedOnly.passed.totalNumOfItems, failedOnly.failed.totalNumOfItems, failedOnly.statistics.inspected]).toEqual([
        0, 1, 1,
      ]);
      expect((await search({ technician: 'Alan' })).statistics.failed).toBe(1);
      const today = new Date().toISOString().slice(0, 10);
      expect((await search({ from: today, to: today })).statistics.inspected).toBe(4);
      expect((await search({ from: '2020-01-01', to: '2020-12-31' })).statistics.inspected).toBe(0);
    });

    it('goes compressed to a client that takes brotli, the same answer once decoded', async () => {
      const plain = await ctx().call('POST', '/ui/qms/parts/search', { token: user, body: {} });
      expect(plain.statusCode).toBe(200);
      expect(plain.rawPayload.length).toBeGreaterThan(1024);
      const br = await ctx().call('POST', '/ui/qms/parts/search', {
        token: user,
        body: {},
        headers: { 'accept-encoding': 'br' },
      });
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
    });

    it('pages each list and sorts as asked', async () => {
      const paged = await search({ passed: { pageNum: 2, numberOfItems: 1 }, sortBy: 'serialNumber', sortOrder: 'asc' });
      expect([paged.passed.pageNum, paged.passed.totalNumOfPages, paged.passed.data.length]).toEqual([2, 3, 1]);
    });

    it('answers 406 for an unknown sort and a range too large, 400 for a malformed one', async () => {
      expectToken(
        await ctx().call('POST', '/ui/qms/parts/search', { token: user, body: { sortBy: 'colour' } }),
        406,
        'qualitySearchSortUnknown',
        'sortBy',
      );
      expectToken(
        await ctx().call('POST', '/ui/qms/parts/search', { token: user, body: { from: '2024-01-01', to: '2026-01-01' } }),
        406,
        'qualitySearchRangeTooLarge',
      );
      expectToken(
        await ctx().call('POST', '/ui/qms/parts/search', { token: user, body: { from: '2026-13-01' } }),
        400,
        'malformedRequest',
      );
      expectToken(
        await ctx().call('POST', '/ui/qms/parts/search', { token: user, body: { deviceId: 'x' } }),
        420,
        'deviceIdNotValid',
      );
    });

    it('counts a re-inspection instead of the earlier one', async () => {
      const response = await inspect({
        partId: a.parts[1]!.id,
        result: 'passed',
        technician: 'Alan',
        qualityParameters: [{ id: 'height', values: [11] }],
      });
      expect(response.statusCode, response.body).toBe(200);
      expect((await partRow(a.parts[1]!.id)).qms_state).toBe('MANUFACTURED');
      expect((await search()).statistics).toMatchObject({
        inspected: 4,
        passed: 4,
        failed: 0,
        passRate: 1,
        failuresByReason: [],
      });
    });
  });

  describe('trace parameters', () => {
    let template: TSvpTemplate;
    const parameter = (name: string) => template.parameters.find((p) => p.name === name)!;

    const fileForm = (fields: [string, string | FormFile][]) => multipartEntries(fields);
    const postForm = (url: string, form: { body: Buffer; headers: Record<string, string> }) =>
      ctx().app.inject({
        method: 'POST',
        url,
        headers: { ...form.headers, authorization: `Bearer ${user}` },
        payload: form.body,
      });

    it('adds types and templates (ADMIN), refusing repeated names and bad bounds', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Dimensions' } });
      expect(type.statusCode, type.body).toBe(200);
      const typeId = type.json<{ id: string }>().id;
      expectToken(
        await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'dimensions' } }),
        420,
        'svpTypeNameTaken',
      );
      const types = await ctx().call('GET', '/ui/svp-type/list', { token: user });
      expect(types.json<{ data: { name: string }[] }>().data.map((t) => t.name)).toEqual(['Dimensions']);

      const parameters = [
        { name: 'Wall', dataType: 'MANUAL_ENTRY', association: 'PART', units: 'mm', low: 1, high: 2 },
        { name: 'Report', dataType: 'FILE', association: 'BUILD' },
        { name: 'Log', dataType: 'DTL', association: 'BUILD_PART' },
        { name: 'Operator', dataType: 'MANUAL_ENTRY', association: 'BUILD' },
      ];
      expectToken(
        await ctx().call('POST', '/ui/svp/add', { token: admin, body: { typeId: randomUUID(), name: 'T', parameters } }),
        420,
        'svpTypeNotPresent',
      );
      expectToken(
        await ctx().call('POST', '/ui/svp/add', {
          token: admin,
          body: { typeId, name: 'T', parameters: [{ name: 'x', dataType: 'FILE', association: 'PART', low: 1 }] },
        }),
        420,
        'parameterRangeNotAllowed',
        'parameters[0].low',
      );
      const added = await ctx().call('POST', '/ui/svp/add', {
        token: admin,
        body: { typeId, name: 'Bracket checks', parameters },
      });
      expect(added.statusCode, added.body).toBe(200);
      template = added.json<TSvpTemplate>();
      expect(template.parameters.map((p) => [p.name, p.dataType, p.association, p.units, p.low, p.high])).toEqual([
        ['Wall', 'MANUAL_ENTRY', 'PART', 'mm', 1, 2],
        ['Report', 'FILE', 'BUILD', null, null, null],
        ['Log', 'DTL', 'BUILD_PART', null, null, null],
        ['Operator', 'MANUAL_ENTRY', 'BUILD', null, null, null],
      ]);
      expectToken(
        await ctx().call('POST', '/ui/svp/add', { token: admin, body: { typeId, name: 'BRACKET checks', parameters } }),
        420,
        'svpTemplateNameTaken',
      );
      const listed = await ctx().call('GET', `/ui/svp/list?typeId=${typeId}`, { token: user });
      expect(listed.json<{ data: TSvpTemplate[] }>().data.map((t) => t.name)).toEqual(['Bracket checks']);
    });

    it('records manual values with the value rules and the association', async () => {
      const part = a.parts[2]!;
      const wall = parameter('Wall').parameterId;
      const add = (body: object) => ctx().call('POST', '/ui/svp-value/manual/add', { token: user, body });
      expectToken(await add({ parameterId: wall, partId: part.id, value: '2.5' }), 420, 'valueOutOfRange', 'value');
      expectToken(await add({ parameterId: wall, partId: part.id, value: 'thick' }), 420, 'invalidValueFormat', 'value');
      expectToken(await add({ parameterId: wall, partId: part.id }), 420, 'valueRequired', 'value');
      expectToken(await add({ parameterId: wall, buildId: a.buildId, value: '1.5' }), 420, 'svpAssociationMismatch', 'buildId');
      expectToken(await add({ parameterId: randomUUID(), partId: part.id, value: '1' }), 420, 'svpParameterNotPresent');
      expectToken(
        await add({ parameterId: parameter('Report').parameterId, buildId: a.buildId, value: '1' }),
        420,
        'svpDataTypeMismatch',
      );
      expectToken(
        await add({ parameterId: parameter('Log').parameterId, partId: part.id, buildId: b.buildId, dtlId: randomUUID() }),
        420,
        'svpAssociationMismatch',
        'buildId',
      );
      expectToken(
        await add({ parameterId: parameter('Log').parameterId, partId: part.id, buildId: a.buildId, dtlId: randomUUID() }),
        420,
        'dtlNotPresent',
      );

      const added = await add({ parameterId: wall, partId: part.id, value: '1.5' });
      expect(added.statusCode, added.body).toBe(200);
      const value = added.json<TSvpValue>();
      expect(value).toMatchObject({
        parameterName: 'Wall',
        partId: part.id,
        buildId: null,
        value: '1.5',
        units: 'mm',
        dataType: 'MANUAL_ENTRY',
      });
      const edited = await ctx().call('POST', '/ui/svp-value/manual/edit', {
        token: user,
        body: { id: value.id, value: '1.75' },
      });
      expect(edited.json<TSvpValue>().value).toBe('1.75');
      expectToken(
        await ctx().call('POST', '/ui/svp-value/manual/edit', { token: user, body: { id: value.id, value: '3' } }),
        420,
        'valueOutOfRange',
      );
      const operator = await add({ parameterId: parameter('Operator').parameterId, buildId: a.buildId, value: 'Ada' });
      expect(operator.statusCode, operator.body).toBe(200);
    });

    it('streams file values to storage with their digest, replaces and serves them', async () => {
      const report = parameter('Report').parameterId;
      const content = Buffer.from('layer times: 12, 13, 12');
      const refused = await postForm(
        '/ui/svp-value/file/add',
        fileForm([
          ['parameterId', report],
          ['partId', a.parts[2]!.id],
          ['file', { filename: 'r.txt', content, contentType: 'text/plain' }],
        ]),
      );
      expectToken(refused, 420, 'svpAssociationMismatch', 'partId');
      const added = await postForm(
        '/ui/svp-value/file/add',
        fileForm([
          ['parameterId', report],
          ['buildId', a.buildId],
          ['file', { filename: '../report.txt', content, contentType: 'text/plain' }],
        ]),
      );
      expect(added.statusCode, added.body).toBe(200);
      const value = added.json<TSvpValue>();
      expect(value.file).toEqual({
        fileName: 'report.txt',
        contentType: 'text/plain',
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      });
      const downloaded = await ctx().call('GET', `/ui/svp-value/file?id=${value.id}`, { token: user });
      expect(downloaded.rawPayload.equals(content)).toBe(true);

      const replacement = Buffer.from('layer times: 11, 11');
      const edited = await postForm(
        '/ui/svp-value/file/edit',
        fileForm([
          ['id', value.id],
          ['parameterId', report],
          ['file', { filename: 'report-2.txt', content: replacement, contentType: 'text/plain' }],
        ]),
      );
      expect(edited.statusCode, edited.body).toBe(200);
      expect(edited.json<TSvpValue>().file!.sha256).toBe(createHash('sha256').update(replacement).digest('hex'));
      expectToken(
        await postForm('/ui/svp-value/file/add', multipartForm({ parameterId: report, buildId: a.buildId })),
        420,
        'uploadFileMissing',
      );
    });

    it('lists a part\u2019s values with its build\u2019s, and keeps templates with values', async () => {
      const part = a.parts[2]!;
      const forPart = await ctx().call('GET', `/ui/svp-value/list?partId=${part.id}`, { token: user });
      expect(
        forPart
          .json<{ data: TSvpValue[] }>()
          .data.map((v) => v.parameterName)
          .sort(),
      ).toEqual(['Operator', 'Report', 'Wall']);
      const history = await ctx().call('GET', `/ui/part/history?partId=${part.id}`, { token: admin });
      expect(history.statusCode, history.body).toBe(200);
      const withValues = history.json<{ traceValues: TSvpValue[]; traceValuesTruncated: boolean }>();
      expect(withValues.traceValues).toEqual(forPart.json<{ data: TSvpValue[] }>().data);
      expect(withValues.traceValuesTruncated).toBe(false);
      const build = await ctx().call('GET', `/ui/build/list?buildId=${a.buildId}`, { token: user });
      expect(build.json<{ data: { buildId: string }[] }>().data.map((b) => b.buildId)).toEqual([a.buildId]);
      const none = await ctx().call('GET', `/ui/build/list?buildId=${randomUUID()}`, { token: user });
      expect(none.json<{ totalNumOfItems: number }>().totalNumOfItems).toBe(0);
      const forBuild = await ctx().call('GET', `/ui/svp-value/list?buildId=${a.buildId}`, { token: user });
      expect(
        forBuild
          .json<{ data: TSvpValue[] }>()
          .data.map((v) => v.parameterName)
          .sort(),
      ).toEqual(['Operator', 'Report']);
      expectToken(await ctx().call('GET', `/ui/svp-value/list?partId=${randomUUID()}`, { token: user }), 420, 'partNotPresent');

      expectToken(
        await ctx().call('POST', '/ui/svp/delete', { token: admin, body: { id: template.id } }),
        420,
        'svpTemplateInUse',
      );
      const { id, typeId, name, description } = template;
      const kept = template.parameters
        .filter((p) => p.name !== 'Wall')
        .map(({ parameterId, name: n, dataType, association }) => ({ parameterId, name: n, dataType, association }));
      expectToken(
        await ctx().call('POST', '/ui/svp/edit', { token: admin, body: { id, typeId, name, description, parameters: kept } }),
        420,
        'svpParameterInUse',
      );
      const renamed = template.parameters.map(({ parameterId, name: n, dataType, association, units, low, high }) => ({
        parameterId,
        name: n === 'Wall' ? 'Wall thickness' : n,
        dataType,
        association,
        ...(units ? { units } : {}),
        ...(low !== null ? { low } : {}),
        ...(high !== null ? { high } : {}),
      }));
      const edited = await ctx().call('POST', '/ui/svp/edit', {
        token: admin,
        body: {
          id,
          typeId,
          name,
          description,
          parameters: [...renamed, { name: 'Colour', dataType: 'MANUAL_ENTRY', association: 'PART' }],
        },
      });
      expect(edited.statusCode, edited.body).toBe(200);
      expect(edited.json<TSvpTemplate>().parameters.map((p) => p.name)).toEqual([
        'Wall thickness',
        'Report',
        'Log',
        'Operator',
        'Colour',
      ]);

      for (const value of forPart.json<{ data: TSvpValue[] }>().data) {
        const deleted = await ctx().call('POST', '/ui/svp-value/delete', { token: user, body: { id: value.id } });
        expect(deleted.statusCode, deleted.body).toBe(200);
      }
      expectToken(
        await ctx().call('POST', '/ui/svp-value/delete', { token: user, body: { id: randomUUID() } }),
        420,
        'svpValueNotPresent',
      );
      const deleted = await ctx().call('POST', '/ui/svp/delete', { token: admin, body: { id: template.id } });
      expect(deleted.statusCode, deleted.body).toBe(200);
      const audit = await db()
        .selectFrom('audit_events')
        .select('event_type')
        .where('event_type', 'like', 'traceParameter%')
        .execute();
      expect(new Set(audit.map((row) => row.event_type))).toEqual(
        new Set(['traceParameterTypeAdded', 'traceParameterTemplateChanged', 'traceParameterValueChanged']),
      );
    });

    it('answers the name taken, not a crash, to two adds of one name at once', async () => {
      const types = await Promise.all(
        ['Surface', 'surface'].map((name) => ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name } })),
      );
      expect(types.map((r) => r.statusCode).sort()).toEqual([200, 420]);
      expectToken(
        types.find((r) => r.statusCode !== 200)!,
        420,
        'svpTypeNameTaken',
        'name',
      );
      const typeId = types.find((r) => r.statusCode === 200)!.json<{ id: string }>().id;
      const templates = await Promise.all(
        ['Gloss', 'GLOSS'].map((name) =>
          ctx().call('POST', '/ui/svp/add', {
            token: admin,
            body: { typeId, name, parameters: [{ name: 'Gloss units', dataType: 'MANUAL_ENTRY', association: 'PART' }] },
          }),
        ),
      );
      expect(templates.map((r) => r.statusCode).sort()).toEqual([200, 420]);
      expectToken(
        templates.find((r) => r.statusCode !== 200)!,
        420,
        'svpTemplateNameTaken',
        'name',
      );
    });

    it('refuses an edit naming one parameter twice, and keeps names unique under concurrent edits', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Edits' } });
      const typeId = type.json<{ id: string }>().id;
      const added = await ctx().call('POST', '/ui/svp/add', {
        token: admin,
        body: {
          typeId,
          name: 'Edited',
          parameters: [
            { name: 'One', dataType: 'MANUAL_ENTRY', association: 'PART' },
            { name: 'Two', dataType: 'MANUAL_ENTRY', association: 'PART' },
          ],
        },
      });
      expect(added.statusCode, added.body).toBe(200);
      const edited = added.json<TSvpTemplate>();
      const [one, two] = edited.parameters;
      const body = (parameters: object[]) => ({ id: edited.id, typeId, name: 'Edited', parameters });
      expectToken(
        await ctx().call('POST', '/ui/svp/edit', {
          token: admin,
          body: body([
            { parameterId: one!.parameterId, name: 'One', dataType: 'MANUAL_ENTRY', association: 'PART' },
            { parameterId: one!.parameterId, name: 'Uno', dataType: 'MANUAL_ENTRY', association: 'PART' },
            { parameterId: two!.parameterId, name: 'Two', dataType: 'MANUAL_ENTRY', association: 'PART' },
          ]),
        }),
        400,
        'malformedRequest',
        'parameters[1].parameterId',
      );
      const kept = [one!, two!].map(({ parameterId, name }) => ({
        parameterId,
        name,
        dataType: 'MANUAL_ENTRY',
        association: 'PART',
      }));
      const answers = await Promise.all(
        [0, 1].map(() =>
          ctx().call('POST', '/ui/svp/edit', {
            token: admin,
            body: body([...kept, { name: 'Three', dataType: 'MANUAL_ENTRY', association: 'PART' }]),
          }),
        ),
      );
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const listed = await ctx().call('GET', `/ui/svp/list?typeId=${typeId}`, { token: admin });
      const names = listed.json<{ data: TSvpTemplate[] }>().data[0]!.parameters.map((p) => p.name);
      expect(names).toEqual(['One', 'Two', 'Three']);
    });

    /** Every key in storage. */
    const storageKeys = async () => {
      const keys: string[] = [];
      for await (const object of ctx().app.services.storage.list()) keys.push(object.key);
      return keys;
    };

    /** Stored objects no value names, among those not in `before`. */
    const unreferencedSince = async (before: string[]) => {
      const named = new Set(
        (await db().selectFrom('svp_values').select('storage_key').where('storage_key', 'is not', null).execute()).map(
          (row) => row.storage_key,
        ),
      );
      return (await storageKeys()).filter((key) => !before.includes(key) && !named.has(key));
    };

    /** Values whose parameter is gone, or whose content is not of their parameter's data type. */
    const inconsistentValues = async () => {
      const rows = await db()
        .selectFrom('svp_values')
        .leftJoin('svp_parameters', 'svp_parameters.id', 'svp_values.parameter_id')
        .select(['svp_values.id', 'svp_parameters.id as parameter', 'svp_parameters.data_type', 'svp_values.storage_key'])
        .execute();
      return rows.filter((row) => row.parameter === null || (row.data_type === 'FILE') !== (row.storage_key !== null));
    };

    it('keeps no value of a parameter that an edit of its template removes or retypes at the same time', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Racing edits' } });
      const typeId = type.json<{ id: string }>().id;
      const keysBefore = await storageKeys();
      for (let round = 0; round < 6; round += 1) {
        const added = await ctx().call('POST', '/ui/svp/add', {
          token: admin,
          body: {
            typeId,
            name: `Racing ${round}`,
            parameters: [
              { name: 'Kept', dataType: 'MANUAL_ENTRY', association: 'PART' },
              { name: 'Dropped', dataType: 'MANUAL_ENTRY', association: 'PART' },
              { name: 'Dropped report', dataType: 'FILE', association: 'BUILD' },
              { name: 'Retyped', dataType: 'MANUAL_ENTRY', association: 'BUILD' },
            ],
          },
        });
        expect(added.statusCode, added.body).toBe(200);
        const racing = added.json<TSvpTemplate>();
        const [kept, dropped, droppedReport, retyped] = racing.parameters;
        // the edit removes two parameters and makes a manual one a file one
        const edit = ctx().call('POST', '/ui/svp/edit', {
          token: admin,
          body: {
            id: racing.id,
            typeId,
            name: racing.name,
            parameters: [
              { parameterId: kept!.parameterId, name: 'Kept', dataType: 'MANUAL_ENTRY', association: 'PART' },
              { parameterId: retyped!.parameterId, name: 'Retyped', dataType: 'FILE', association: 'BUILD' },
            ],
          },
        });
        const manual = (parameterId: string, target: object) =>
          ctx().call('POST', '/ui/svp-value/manual/add', { token: user, body: { parameterId, value: '1', ...target } });
        const [edited, ...values] = await Promise.all([
          edit,
          manual(dropped!.parameterId, { partId: a.parts[0]!.id }),
          postForm(
            '/ui/svp-value/file/add',
            fileForm([
              ['parameterId', droppedReport!.parameterId],
              ['buildId', a.buildId],
              ['file', { filename: 'r.txt', content: Buffer.from(`report ${round}`), contentType: 'text/plain' }],
            ]),
          ),
          manual(retyped!.parameterId, { buildId: a.buildId }),
          manual(dropped!.parameterId, { partId: a.parts[1]!.id }),
        ]);
        const [droppedValue, reportValue, retypedValue, droppedAgain] = values as [
          (typeof values)[0],
          (typeof values)[0],
          (typeof values)[0],
          (typeof values)[0],
        ];
        if (edited.statusCode === 200) {
          // the edit went first: what it removed is gone, what it retyped takes files only
          expectToken(droppedValue, 420, 'svpParameterNotPresent', 'parameterId');
          expectToken(reportValue, 420, 'svpParameterNotPresent', 'parameterId');
          expectToken(retypedValue, 420, 'svpDataTypeMismatch', 'parameterId');
          expectToken(droppedAgain, 420, 'svpParameterNotPresent', 'parameterId');
        } else {
          // a value went first: the edit is refused whole (one answer per parameter it found in
          // use), and every value is recorded
          const refusals = edited.statusCode === 418 ? expectTokens(edited) : [expectToken(edited, 420, 'svpParameterInUse')];
          for (const refusal of refusals) {
            expect(refusal.errorToken).toBe('svpParameterInUse');
            expect(refusal.field).toMatch(/^parameters/);
          }
          for (const value of values) expect(value.statusCode, value.body).toBe(200);
        }
        const parameterIds = (
          await db().selectFrom('svp_parameters').select('id').where('template_id', '=', racing.id).execute()
        ).map((row) => row.id);
        expect(parameterIds.sort()).toEqual(
          (edited.statusCode === 200
            ? [kept!.parameterId, retyped!.parameterId]
            : racing.parameters.map((p) => p.parameterId)
          ).sort(),
        );
      }
      expect(await inconsistentValues()).toEqual([]);
      expect(await unreferencedSince(keysBefore)).toEqual([]);
    });

    it('answers svpValueNotPresent to edits of a value being deleted, and keeps no file nothing names', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Racing values' } });
      const added = await ctx().call('POST', '/ui/svp/add', {
        token: admin,
        body: {
          typeId: type.json<{ id: string }>().id,
          name: 'Racing values',
          parameters: [
            { name: 'Note', dataType: 'MANUAL_ENTRY', association: 'BUILD' },
            { name: 'Scan', dataType: 'FILE', association: 'BUILD' },
          ],
        },
      });
      expect(added.statusCode, added.body).toBe(200);
      const [note, scan] = added.json<TSvpTemplate>().parameters;
      const keysBefore = await storageKeys();
      const replaceScan = (id: string, content: string) =>
        postForm(
          '/ui/svp-value/file/edit',
          fileForm([
            ['id', id],
            ['parameterId', scan!.parameterId],
            ['file', { filename: 'scan.txt', content: Buffer.from(content), contentType: 'text/plain' }],
          ]),
        );
      for (let round = 0; round < 6; round += 1) {
        const manual = await ctx().call('POST', '/ui/svp-value/manual/add', {
          token: user,
          body: { parameterId: note!.parameterId, buildId: a.buildId, value: 'first' },
        });
        expect(manual.statusCode, manual.body).toBe(200);
        const file = await postForm(
          '/ui/svp-value/file/add',
          fileForm([
            ['parameterId', scan!.parameterId],
            ['buildId', a.buildId],
            ['file', { filename: 'scan.txt', content: Buffer.from('scan 0'), contentType: 'text/plain' }],
          ]),
        );
        expect(file.statusCode, file.body).toBe(200);
        const manualId = manual.json<TSvpValue>().id;
        const fileId = file.json<TSvpValue>().id;
        const answers = await Promise.all([
          ctx().call('POST', '/ui/svp-value/manual/edit', { token: user, body: { id: manualId, value: 'second' } }),
          ctx().call('POST', '/ui/svp-value/delete', { token: user, body: { id: manualId } }),
          replaceScan(fileId, `scan 1 of ${round}`),
          ctx().call('POST', '/ui/svp-value/delete', { token: user, body: { id: fileId } }),
          replaceScan(fileId, `scan 2 of ${round}`),
        ]);
        const [manualEdit, manualDelete, fileEdit, fileDelete, fileEditToo] = answers;
        expect(manualDelete!.statusCode, manualDelete!.body).toBe(200);
        expect(fileDelete!.statusCode, fileDelete!.body).toBe(200);
        for (const edit of [manualEdit!, fileEdit!, fileEditToo!]) {
          if (edit.statusCode !== 200) expectToken(edit, 420, 'svpValueNotPresent', 'id');
        }
        const left = await db().selectFrom('svp_values').select('id').where('id', 'in', [manualId, fileId]).execute();
        expect(left).toEqual([]);
      }
      // every file stored for the values went with them: those replaced, and those of the edits
      // that came too late
      expect(await unreferencedSince(keysBefore)).toEqual([]);
    });

    it('keeps file values and inspection pictures through the storage sweep (their objects are referenced)', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Sweep' } });
      expect(type.statusCode, type.body).toBe(200);
      const kept = await ctx().call('POST', '/ui/svp/add', {
        token: admin,
        body: {
          typeId: type.json<{ id: string }>().id,
          name: 'Sweep checks',
          parameters: [{ name: 'Kept report', dataType: 'FILE', association: 'BUILD' }],
        },
      });
      expect(kept.statusCode, kept.body).toBe(200);
      const content = Buffer.from('a report the sweep must keep');
      const added = await postForm(
        '/ui/svp-value/file/add',
        fileForm([
          ['parameterId', kept.json<TSvpTemplate>().parameters[0]!.parameterId],
          ['buildId', a.buildId],
          ['file', { filename: 'kept.txt', content, contentType: 'text/plain' }],
        ]),
      );
      expect(added.statusCode, added.body).toBe(200);
      const value = added.json<TSvpValue>();
      const inspected = await db()
        .selectFrom('quality_inspections')
        .select('id')
        .where('pictures', '!=', '[]')
        .orderBy('created_at')
        .executeTakeFirstOrThrow();
      // every stored object older than the sweep's grace period
      const root = path.join(ctx().config.dataDir, 'storage');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      for (const prefix of await fs.readdir(root)) {
        if (!/^[a-f0-9]{2}$/.test(prefix)) continue;
        for (const name of await fs.readdir(path.join(root, prefix))) {
          await fs.utimes(path.join(root, prefix, name), twoHoursAgo, twoHoursAgo);
        }
      }
      const jobs = jobsModule(ctx().app.services, quiet);
      await jobs.services.jobs.enqueue(db(), STORAGE_SWEEP, null);
      await jobs.runner.runDue();

      const downloaded = await ctx().call('GET', `/ui/svp-value/file?id=${value.id}`, { token: user });
      expect(downloaded.statusCode, downloaded.body).toBe(200);
      expect(downloaded.rawPayload.equals(content)).toBe(true);
      const picture = await ctx().call('GET', `/ui/qms/inspection/picture?inspectionId=${inspected.id}&index=0`, {
        token: user,
      });
      expect(picture.statusCode, picture.body).toBe(200);
      expect(picture.rawPayload.equals(png)).toBe(true);
    });

    it('answers storageTypeReadError, not 500, for a file value or a picture whose stored object is missing', async () => {
      const type = await ctx().call('POST', '/ui/svp-type/add', { token: admin, body: { name: 'Lost' } });
      expect(type.statusCode, type.body).toBe(200);
      const template = await ctx().call('POST', '/ui/svp/add', {
        token: admin,
        body: {
          typeId: type.json<{ id: string }>().id,
          name: 'Lost checks',
          parameters: [{ name: 'Lost report', dataType: 'FILE', association: 'BUILD' }],
        },
      });
      expect(template.statusCode, template.body).toBe(200);
      const added = await postForm(
        '/ui/svp-value/file/add',
        fileForm([
          ['parameterId', template.json<TSvpTemplate>().parameters[0]!.parameterId],
          ['buildId', a.buildId],
          ['file', { filename: 'lost.txt', content: Buffer.from('gone from the disk'), contentType: 'text/plain' }],
        ]),
      );
      expect(added.statusCode, added.body).toBe(200);
      const value = added.json<TSvpValue>();
      const inspection = await inspect(
        {
          partId: a.parts[0]!.id,
          result: 'passed',
          technician: 'Grace',
          qualityParameters: [
            { id: 'height', values: [11.2] },
            { id: 'finish', values: ['matte'] },
          ],
        },
        [{ filename: 'lost.png', content: png, contentType: 'image/png' }],
      );
      expect(inspection.statusCode, inspection.body).toBe(200);
      const inspected = await db()
        .selectFrom('quality_inspection_pictures')
        .select(['inspection_id', 'position', 'storage_key'])
        .where('inspection_id', '=', inspection.json<{ data: TInspection[] }>().data[0]!.inspectionId)
        .executeTakeFirstOrThrow();
      const { storage_key: valueKey } = await db()
        .selectFrom('svp_values')
        .select('storage_key')
        .where('id', '=', value.id)
        .executeTakeFirstOrThrow();
      const root = path.join(ctx().config.dataDir, 'storage');
      for (const key of [valueKey!, inspected.storage_key]) await fs.rm(path.join(root, key.slice(0, 2), key));

      expectToken(await ctx().call('GET', `/ui/svp-value/file?id=${value.id}`, { token: user }), 420, 'storageTypeReadError');
      expectToken(
        await ctx().call(
          'GET',
          `/ui/qms/inspection/picture?inspectionId=${inspected.inspection_id}&index=${inspected.position}`,
          { token: user },
        ),
        420,
        'storageTypeReadError',
      );
    });
  });
});
