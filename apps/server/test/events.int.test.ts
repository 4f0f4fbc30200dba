import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TTraceEventReceipt, TTraceEventUploadResult, TTraceHistory } from '@manifold/contract';
import { generateKeyPair } from '../src/crypto/key-pairs.js';
import { eventHash, traceEventXml } from '../src/modules/events/trace-event-format.js';
import { verifyHistory } from '../src/modules/events/verify-history.js';
import { runCli } from './helpers/cli.js';
import { addOrder, policyFor, registerApprovedMachine, suiteLicensingWorld } from './helpers/licensing-fixtures.js';
import { uploadForm } from './helpers/packages-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

describeEachDatabase('trace events in', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  /** An order with an authorization of `deviceId` sent to it. */
  const sentAuthorization = async (deviceId = world.deviceId, send = true) => {
    const orderId = await addOrder(ctx(), policyFor(world));
    const authorizationId = await grantAuthorization(ctx(), orderId, deviceId, 2, { send });
    return { orderId, authorizationId };
  };

  /** A machine of its own, so the chain each test asserts is its own. */
  const ownMachine = async () => new MachineChain(await registerApprovedMachine(ctx(), world.root));

  const storedEvents = (eventId: string) =>
    ctx().app.services.database.db.selectFrom('trace_events').selectAll().where('event_id', '=', eventId).execute();

  const auditOf = (type: string, subject: string) =>
    ctx()
      .app.services.database.db.selectFrom('audit_events')
      .selectAll()
      .where('event_type', '=', type)
      .where('subject', '=', subject)
      .execute();

  const upload = async (context: TestApp, content: unknown, token?: string) =>
    uploadForm(context, '/ui/event/upload', token ?? (await context.adminToken()), {
      file: { filename: 'events.json', content: Buffer.from(JSON.stringify(content)), contentType: 'application/json' },
    });

  const exportOf = async (deviceId: string) => {
    const response = await ctx().call('GET', `/ui/event/export?deviceId=${deviceId}`, { token: await ctx().adminToken() });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TTraceHistory>();
  };

  describe('POST /stp/event', () => {
    it('stores a signed event of the machine\u2019s authorization once, audits it, and answers a repeat the same', async () => {
      const chain = new MachineChain(world);
      const { orderId, authorizationId } = await sentAuthorization();
      const event = chain.next('jobStarted', { authorizationId, jobId: 'job-1' });

      const first = await chain.sendStp(ctx(), event);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json<TTraceEventReceipt>()).toEqual({
        eventId: event.eventId,
        eventHash: eventHash(event),
        chainFinding: null,
      });

      const again = await chain.sendStp(ctx(), event); // a new envelope (new nonce), the same event
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(first.json());

      const rows = await storedEvents(event.eventId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        device_id: world.deviceId,
        order_id: orderId,
        kind: 'jobStarted',
        source: 'stp',
        sequence: 1,
      });
      const audited = await auditOf('jobStarted', orderId);
      expect(audited).toHaveLength(1);
      expect(audited[0]!.actor).toBe(`device:${world.deviceId}`);
      expect(JSON.parse(audited[0]!.details!)).toMatchObject({ eventId: event.eventId, authorizationId, jobId: 'job-1' });
    });

    it('stores an event once when the same event arrives many times at once', async () => {
      const chain = await ownMachine();
      const { authorizationId } = await sentAuthorization(chain.world.deviceId);
      const event = chain.next('quantityConsumed', { authorizationId, quantity: 1 });
      const responses = await Promise.all(Array.from({ length: 6 }, () => chain.sendStp(ctx(), event)));
      for (const response of responses) expect(response.statusCode, response.body).toBe(200);
      expect(new Set(responses.map((response) => response.body)).size).toBe(1);
      expect(await storedEvents(event.eventId)).toHaveLength(1);
    });

    it('refuses an unknown, unsent or foreign authorization, and a licence event without one', async () => {
      const chain = await ownMachine();
      const other = await ownMachine();
      const foreign = await sentAuthorization(other.world.deviceId);
      const unsent = await sentAuthorization(chain.world.deviceId, false);
      for (const authorizationId of [randomUUID(), foreign.authorizationId, unsent.authorizationId]) {
        const event = chain.event('jobStarted', { authorizationId });
        expectToken(await chain.sendStp(ctx(), event), 420, 'authorizationNotAvailable');
        expect(await storedEvents(event.eventId)).toHaveLength(0);
      }
      expectToken(await chain.sendStp(ctx(), chain.event('jobEnded')), 420, 'authorizationNotAvailable');
      // a machine's own state needs no authorization
      const idle = await chain.sendStp(ctx(), chain.next('machineIdle'));
      expect(idle.statusCode, idle.body).toBe(200);
    });

    it('records the revocation a machine received (spec §4 revocation received) only of a revoked authorization', async () => {
      const chain = await ownMachine();
      const { orderId, authorizationId } = await sentAuthorization(chain.world.deviceId);
      const early = chain.event('revocationReceived', { authorizationId });
      expectToken(await chain.sendStp(ctx(), early), 400, 'malformedRequest', 'body.authorizationId');
      expect(await storedEvents(early.eventId)).toHaveLength(0);

      const revoked = await ctx().call('POST', '/ui/authorization/revoke', {
        token: await ctx().adminToken(),
        body: { orderId, authorizationId },
      });
      expect(revoked.statusCode, revoked.body).toBe(200);
      const event = chain.next('revocationReceived', { authorizationId });
      const stored = await chain.sendStp(ctx(), event);
      expect(stored.statusCode, stored.body).toBe(200);
      expect(await storedEvents(event.eventId)).toMatchObject([{ kind: 'revocationReceived', order_id: orderId }]);
      const audited = await auditOf('revocationReceived', orderId);
      expect(audited).toHaveLength(1);
      expect(audited[0]!.actor).toBe(`device:${chain.world.deviceId}`);
      // a licence's event: it names its authorization
      expectToken(await chain.sendStp(ctx(), chain.event('revocationReceived')), 420, 'authorizationNotAvailable');
    });

    it('refuses a malformed eventId and an eventId already used for another event', async () => {
      const chain = await ownMachine();
      const body = { ...MachineChain.body(chain.event('machineIdle')), eventId: 'event-1' };
      const { stpCall } = await import('./helpers/licensing-fixtures.js');
      expectToken(await stpCall(ctx(), chain.world, '/stp/event', body), 420, 'traceEventIdNotValid');

      const event = chain.next('machineIdle');
      expect((await chain.sendStp(ctx(), event)).statusCode).toBe(200);
      expectToken(await chain.sendStp(ctx(), { ...event, kind: 'machineOffline' }), 420, 'traceEventIdNotValid');
    });

    it('refuses an envelope not signed by the machine', async () => {
      const chain = await ownMachine();
      const { stpCall } = await import('./helpers/licensing-fixtures.js');
      const stranger = await generateKeyPair('EC');
      const event = chain.event('machineIdle');
      const response = await stpCall(ctx(), chain.world, '/stp/event', MachineChain.body(event), {
        signingKeyPem: stranger.privateKeyPem,
      });
      expectToken(response, 401, 'stpSignatureInvalid');
      expect(await storedEvents(event.eventId)).toHaveLength(0);
    });
  });

  describe('POST /apl/event', () => {
    it('stores a signed XML event and continues the machine\u2019s chain', async () => {
      const chain = await ownMachine();
      const { authorizationId } = await sentAuthorization(chain.world.deviceId);
      const started = chain.next('jobStarted', { authorizationId, jobId: 'j-7' });
      expect((await chain.sendStp(ctx(), started)).statusCode).toBe(200);
      const ended = chain.next('jobEnded', { authorizationId, jobId: 'j-7', quantity: 2, data: { note: 'fine <&> "all"' } });
      const xml = chain.xml(ended);
      const response = await chain.sendXml(ctx(), xml);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ eventId: ended.eventId, eventHash: eventHash(ended), chainFinding: null });
      const repeated = await chain.sendXml(ctx(), xml);
      expect(repeated.json()).toEqual(response.json());
      const [row] = await storedEvents(ended.eventId);
      expect(row).toMatchObject({ sequence: 2, previous_hash: eventHash(started), source: 'xml', quantity: 2 });
      expect(JSON.parse(row!.data)).toEqual({ note: 'fine <&> "all"' });
    });

    it('stores an event at the limits of its data, escaped in XML to more than 64 KiB, intact', async () => {
      const chain = await ownMachine();
      const data = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`value${i}`, '<&>"'.repeat(256)]));
      const event = chain.next('machineIdle', { data });
      const xml = chain.xml(event);
      expect(Buffer.byteLength(xml)).toBeGreaterThan(64 * 1024);
      const response = await chain.sendXml(ctx(), xml);
      expect(response.statusCode, response.body).toBe(200);
      const [row] = await storedEvents(event.eventId);
      expect(JSON.parse(row!.data)).toEqual(data);
      expect(JSON.parse(row!.proof)).toEqual({ format: 'xml', xml });
    });

    it('refuses XML with a DOCTYPE or external entities before reading it', async () => {
      const chain = await ownMachine();
      const xml = chain.xml(chain.event('machineIdle'));
      const withEntity = xml.replace(
        '<TraceEvent',
        '<!DOCTYPE TraceEvent [<!ENTITY secret SYSTEM "file:///etc/passwd">]><TraceEvent',
      );
      expectToken(await chain.sendXml(ctx(), withEntity), 400, 'traceEventMalformed');
      expectToken(await chain.sendXml(ctx(), '<TraceEvent'), 400, 'traceEventMalformed');
      expectToken(await chain.sendXml(ctx(), xml.replace('<EventId>', '<!--x--><EventId>')), 400, 'traceEventMalformed');
    });

    it('refuses a document nested too deeply (in a field or in its signature) with 400 traceEventMalformed', async () => {
      const chain = await ownMachine();
      const nested = (depth: number) => '<x>'.repeat(depth) + '</x>'.repeat(depth);
      const head = `<TraceEvent xmlns="urn:manifold:trace-event:1"><DeviceId>${chain.world.deviceId}</DeviceId>`;
      const signature = (content: string) =>
        `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${content}</ds:Signature>`;
      for (const xml of [
        `${head}<Data name="note">${nested(30_000)}</Data></TraceEvent>`,
        `${head}${signature(nested(30_000))}</TraceEvent>`,
        `${head}${signature(nested(40))}</TraceEvent>`,
      ]) {
        expectToken(await chain.sendXml(ctx(), xml), 400, 'traceEventMalformed', 'body');
      }
      // an uploaded file's XML proofs are read the same way
      const file = { events: [{ proof: { format: 'xml', xml: `${head}${signature(nested(30_000))}</TraceEvent>` } }] };
      expectToken(await upload(ctx(), file), 400, 'traceEventMalformed', 'file.events[0]');
    });

    it('stores an XML event whose data names are also names of object members, as the STP form does', async () => {
      const chain = await ownMachine();
      const data = { constructor: 'a', toString: 'b', hasOwnProperty: 'c', valueOf: 'd' };
      const event = chain.next('machineIdle', { data });
      const response = await chain.sendXml(ctx(), chain.xml(event));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ eventId: event.eventId, eventHash: eventHash(event), chainFinding: null });
      const [row] = await storedEvents(event.eventId);
      expect(JSON.parse(row!.data)).toEqual(data);
    });

    it('refuses XML signed by another key, changed after signing, or unsigned', async () => {
      const chain = await ownMachine();
      const other = await ownMachine();
      const event = chain.event('machineIdle');
      const foreign = chain.xml(event, {
        privateKeyPem: other.world.machine.signingKeyPem,
        certificatePem: other.world.machine.apl.signingCertificate,
      });
      expectToken(await chain.sendXml(ctx(), foreign), 401, 'traceEventSignatureInvalid');
      const changed = chain.xml(event).replace('<Kind>machineIdle</Kind>', '<Kind>machineOffline</Kind>');
      expectToken(await chain.sendXml(ctx(), changed), 401, 'traceEventSignatureInvalid');
      expectToken(await chain.sendXml(ctx(), traceEventXml(event)), 401, 'traceEventSignatureInvalid');
      expect(await storedEvents(event.eventId)).toHaveLength(0);
    });

    it('refuses an event of an unregistered machine and a malformed eventId', async () => {
      const chain = await ownMachine();
      const stranger = new MachineChain({ machine: chain.world.machine, deviceId: randomUUID() });
      expectToken(await chain.sendXml(ctx(), stranger.xml(stranger.event('machineIdle'))), 420, 'traceEventSourceNotSupported');
      const malformed = chain.xml({ ...chain.event('machineIdle'), eventId: 'not-a-uuid' });
      expectToken(await chain.sendXml(ctx(), malformed), 420, 'traceEventIdNotValid');
    });
  });

  describe('the hash chain', () => {
    it('records a gap and a fork as findings (event and audit) and goes on from the new head', async () => {
      const chain = await ownMachine();
      const first = chain.next('machineIdle');
      const second = chain.next('machineOffline');
      for (const event of [first, second]) expect((await chain.sendStp(ctx(), event)).statusCode).toBe(200);

      // gap: names an event the server never saw
      const gap = chain.event('machineIdle', { previousHash: 'a'.repeat(64) });
      expect((await chain.sendStp(ctx(), gap)).json<TTraceEventReceipt>().chainFinding).toBe('gap');
      // fork: names an earlier event, not the head
      const fork = chain.event('machineIdle', { previousHash: eventHash(first) });
      expect((await chain.sendXml(ctx(), chain.xml(fork))).json<TTraceEventReceipt>().chainFinding).toBe('fork');
      // a restart of the chain (no previousHash) on a machine with history is a fork too
      const restart = chain.event('machineIdle');
      expect((await chain.sendStp(ctx(), restart)).json<TTraceEventReceipt>().chainFinding).toBe('fork');
      // and the chain continues from the last stored event
      chain.head = eventHash(restart);
      expect((await chain.sendStp(ctx(), chain.next('machineOffline'))).json<TTraceEventReceipt>().chainFinding).toBeNull();

      const findings = await auditOf('traceChainBroken', chain.world.deviceId);
      expect(findings.map((row) => JSON.parse(row.details!) as { finding: string; eventId: string })).toEqual([
        expect.objectContaining({ finding: 'gap', eventId: gap.eventId }),
        expect.objectContaining({ finding: 'fork', eventId: fork.eventId }),
        expect.objectContaining({ finding: 'fork', eventId: restart.eventId }),
      ]);

      // the export shows the breaks, and the offline verifier finds exactly them
      const history = await exportOf(chain.world.deviceId);
      expect(history.events.map((event) => event.chainFinding)).toEqual([null, null, 'gap', 'fork', 'fork', null]);
      const report = await verifyHistory(history);
      expect(report.problems).toEqual([]);
      expect(report.breaks.map((found) => [found.sequence, found.recorded])).toEqual([
        [3, 'gap'],
        [4, 'fork'],
        [5, 'fork'],
      ]);
    });

    it('exports a history the offline verifier accepts, and catches a changed one', async () => {
      const chain = await ownMachine();
      const { authorizationId } = await sentAuthorization(chain.world.deviceId);
      expect((await chain.sendStp(ctx(), chain.next('jobStarted', { authorizationId, jobId: 'a' }))).statusCode).toBe(200);
      expect(
        (await chain.sendXml(ctx(), chain.xml(chain.next('jobEnded', { authorizationId, jobId: 'a', quantity: 2 })))).statusCode,
      ).toBe(200);
      const history = await exportOf(chain.world.deviceId);
      expect(history.events).toHaveLength(2);
      const sound = await verifyHistory(history);
      expect(sound).toMatchObject({ events: 2, breaks: [], problems: [] });
      // the documented command, no server involved
      // (both at once, off this worker's event loop, which serves the suite's server)
      const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'history-'));
      try {
        const verify = async (name: string, content: TTraceHistory) => {
          const file = path.join(directory, name);
          await fs.writeFile(file, JSON.stringify(content));
          return runCli('apps/server/src/cli/verify-history.ts', [file]);
        };
        const [cli, broken] = await Promise.all([
          verify('history.json', history),
          verify('broken.json', { ...history, events: history.events.slice(1) }),
        ]);
        expect(cli.code, cli.stdout + cli.stderr).toBe(0);
        expect(cli.stdout).toContain('history verified');
        expect(broken.code, broken.stdout + broken.stderr).toBe(1);
        expect(broken.stdout).toContain('break at event 2');
      } finally {
        await fs.rm(directory, { recursive: true, force: true });
      }

      // dropping an event breaks the chain where the server recorded none
      const dropped = await verifyHistory({ ...history, events: [{ ...history.events[1]!, sequence: 1 }] });
      expect(dropped.problems).toEqual([expect.stringContaining('the server recorded no finding')]);
      // a changed body no longer verifies
      const [stp] = history.events;
      if (stp?.proof.format !== 'stp') throw new Error('the first event came by STP');
      const changed = structuredClone(history);
      const proof = changed.events[0]!.proof;
      if (proof.format === 'stp') proof.envelope.body.quantity = 5;
      expect((await verifyHistory(changed)).problems).toEqual([expect.stringContaining('signature does not verify')]);
      // a pinned certificate of another machine verifies nothing
      const other = await ownMachine();
      const pinned = await verifyHistory(history, { certificatePem: other.world.machine.apl.signingCertificate });
      expect(pinned.problems).toHaveLength(2);
    });
  });

  describe('POST /ui/event/upload', () => {
    it('needs a session', async () => {
      const response = await uploadForm(ctx(), '/ui/event/upload', undefined, {
        file: { filename: 'events.json', content: Buffer.from('{}'), contentType: 'application/json' },
      });
      expectToken(response, 401, 'invalidSessionToken');
      expectToken(await ctx().call('GET', `/ui/event/export?deviceId=${world.deviceId}`), 401, 'invalidSessionToken');
    });

    it('stores the signed events of a registered machine in order, repeats once, as a USER too', async () => {
      const chain = await ownMachine();
      const { authorizationId } = await sentAuthorization(chain.world.deviceId);
      const events = [
        chain.next('jobStarted', { authorizationId, jobId: 'a' }),
        chain.next('jobEnded', { authorizationId, jobId: 'a', quantity: 2 }),
      ];
      const file = {
        events: [
          { proof: { format: 'stp', envelope: await chain.envelope(events[0]!) } },
          { proof: { format: 'xml', xml: chain.xml(events[1]!) } },
        ],
      };
      const { token } = await ctx().createUser();
      const response = await upload(ctx(), file, token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<TTraceEventUploadResult>()).toEqual({ received: 2, stored: 2, repeated: 0, findings: 0 });
      expect((await storedEvents(events[1]!.eventId))[0]).toMatchObject({ sequence: 2, source: 'upload' });

      // the machine's export uploads again as repeats only
      const again = await upload(ctx(), await exportOf(chain.world.deviceId));
      expect(again.json<TTraceEventUploadResult>()).toEqual({ received: 2, stored: 0, repeated: 2, findings: 0 });
    });

    it('reads a file starting with a UTF-8 byte order mark without it (one mark only)', async () => {
      const chain = await ownMachine();
      const event = chain.next('machineIdle');
      const json = JSON.stringify({ events: [{ proof: { format: 'xml', xml: chain.xml(event) } }] });
      const send = async (content: string) =>
        uploadForm(ctx(), '/ui/event/upload', await ctx().adminToken(), {
          file: { filename: 'events.json', content: Buffer.from(content), contentType: 'application/json' },
        });
      expectToken(await send('\uFEFF\uFEFF' + json), 400, 'traceEventMalformed', 'file');
      expect(await storedEvents(event.eventId)).toHaveLength(0);
      const response = await send('\uFEFF' + json);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<TTraceEventUploadResult>()).toEqual({ received: 1, stored: 1, repeated: 0, findings: 0 });
      expect((await storedEvents(event.eventId))[0]).toMatchObject({ source: 'upload' });
    });

    it('refuses a file whose signed events hold characters XML cannot carry (NUL among them), storing nothing', async () => {
      const chain = await ownMachine();
      const nul = chain.event('machineIdle', { data: { note: 'a\u0000b' } });
      const control = chain.event('machineIdle', { data: { note: 'a\u0001b' } });
      const withNul = await upload(ctx(), { events: [{ proof: { format: 'stp', envelope: await chain.envelope(nul) } }] });
      expectToken(withNul, 400, 'malformedRequest');
      const withControl = await upload(ctx(), {
        events: [{ proof: { format: 'stp', envelope: await chain.envelope(control) } }],
      });
      expectToken(withControl, 420, 'invalidCharacters', 'file.events[0].proof.envelope.body.data.note');
      expect(await storedEvents(nul.eventId)).toHaveLength(0);
      expect(await storedEvents(control.eventId)).toHaveLength(0);
    });

    it('refuses a file nested too deeply with 400 traceEventMalformed, not a server error', async () => {
      const chain = await ownMachine();
      const envelope = await chain.envelope(chain.event('machineIdle'));
      const nested = '['.repeat(100_000) + ']'.repeat(100_000);
      // a JSON text written by hand: no signer walks a value nested this deeply
      const content = JSON.stringify({
        events: [{ proof: { format: 'stp', envelope: { ...envelope, body: '(body)' } } }],
      }).replace('"(body)"', `{"note":${nested}}`);
      const response = await uploadForm(ctx(), '/ui/event/upload', await ctx().adminToken(), {
        file: { filename: 'events.json', content: Buffer.from(content), contentType: 'application/json' },
      });
      expectToken(response, 400, 'traceEventMalformed', 'file');
    });

    it('stores nothing of a file with one bad signature, and refuses what is not a file of events', async () => {
      const chain = await ownMachine();
      const good = chain.next('machineIdle');
      const bad = chain.next('machineOffline');
      const forged = chain.xml(bad).replace('machineOffline', 'machineIdle');
      const response = await upload(ctx(), {
        events: [{ proof: { format: 'xml', xml: chain.xml(good) } }, { proof: { format: 'xml', xml: forged } }],
      });
      expectToken(response, 401, 'traceEventSignatureInvalid');
      expect(await storedEvents(good.eventId)).toHaveLength(0);
      // an eventId taken by another event, in the file or stored, refuses the file before storing
      const stored = chain.next('machineIdle');
      expect((await chain.sendStp(ctx(), stored)).statusCode).toBe(200);
      const reused = chain.event('machineOffline', { eventId: stored.eventId });
      const taken = await upload(ctx(), {
        events: [{ proof: { format: 'xml', xml: chain.xml(good) } }, { proof: { format: 'xml', xml: chain.xml(reused) } }],
      });
      expect(expectToken(taken, 420, 'traceEventIdNotValid').field).toBe('file.events[1].eventId');
      const twice = chain.event('machineOffline');
      const inFile = await upload(ctx(), {
        events: [
          { proof: { format: 'xml', xml: chain.xml(twice) } },
          { proof: { format: 'xml', xml: chain.xml({ ...twice, kind: 'machineIdle' }) } },
        ],
      });
      expect(expectToken(inFile, 420, 'traceEventIdNotValid').field).toBe('file.events[1].eventId');
      expect(await storedEvents(good.eventId)).toHaveLength(0);
      expect(await storedEvents(twice.eventId)).toHaveLength(0);
      expectToken(await upload(ctx(), { events: [] }), 400, 'traceEventMalformed');
      const notJson = await uploadForm(ctx(), '/ui/event/upload', await ctx().adminToken(), {
        file: { filename: 'events.json', content: Buffer.from('<xml/>'), contentType: 'application/json' },
      });
      expectToken(notJson, 400, 'traceEventMalformed');
      const stranger = new MachineChain({ machine: chain.world.machine, deviceId: randomUUID() });
      const unknown = await upload(ctx(), {
        events: [{ proof: { format: 'xml', xml: stranger.xml(stranger.event('machineIdle')) } }],
      });
      expectToken(unknown, 420, 'traceEventSourceNotSupported');
    });
  });
});
