import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import * as oracle from 'epcis2.js';
import { traceEventKinds, type TEpcisDocument, type TPage, type TPart } from '@manifold/contract';
import { addOrder, licensingWorld, type LicensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { multipartEntries } from './helpers/multipart.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

/** The `epcis2.js` package: the GS1 EPCIS 2.0 JSON Schema and an independent event hash (test-only oracle). */
const epcis2 = ((oracle as { default?: typeof oracle }).default ?? oracle) as typeof oracle;

/** The document is valid EPCIS 2.0 and every event's eventID is the hash the oracle computes for it. */
function expectVerifiedDocument(document: TEpcisDocument) {
  expect(epcis2.validateEpcisDocument(document, false)).toEqual({ success: true, errors: [] });
  for (const event of document.epcisBody.eventList) {
    const { eventID, ...content } = event;
    expect(eventID).toBe(epcis2.eventToHashedId(content, document['@context']));
  }
}

describeEachDatabase('EPCIS 2.0 exports: part/epcis and event/epcis', (ctx) => {
  let world: LicensingWorld;
  let made: TPart;
  let failed: TPart;

  // every kind a machine reports, once or more: two jobs made, one failed, one cancelled, a licence revoked
  beforeAll(async () => {
    world = await licensingWorld(ctx());
    const chain = new MachineChain(world);
    const orderId = await addOrder(ctx(), policyFor(world, { serialization: { type: 'Dec', prefix: 'E-', start: 1, end: 99 } }));
    const authorizationId = await grantAuthorization(ctx(), orderId, world.deviceId, 5);
    const licence = { authorizationId };
    // a second licence, revoked: the machine reports the revocation it received
    const revokedId = await grantAuthorization(ctx(), orderId, world.deviceId, 1);
    const revoked = await ctx().call('POST', '/ui/authorization/revoke', {
      token: await ctx().adminToken(),
      body: { orderId, authorizationId: revokedId },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const job = (jobId: string) => ({ authorizationId, jobId });
    const events = [
      chain.next('licenceReceivedByMachine', licence),
      chain.next('designPackageReceivedByMachine', licence),
      chain.next('privateFileDecrypted', licence),
      chain.next('publicFileAccessed'),
      chain.next('prebuild', licence),
      chain.next('prebuildCancelled', licence),
      chain.next('jobStarted', { ...job('j1'), quantity: 1 }),
      chain.next('jobPaused', job('j1')),
      chain.next('jobResumed', job('j1')),
      chain.next('quantityConsumed', { ...job('j1'), quantity: 1 }),
      chain.next('qualityCheckPassed', { ...job('j1'), data: { height: '12.0', note: ' within tolerance ' } }),
      chain.next('qualityCheckFailed', { ...job('j1'), data: { width: '0012' } }),
      chain.next('scanningPassed', job('j1')),
      chain.next('scanningFailed', job('j1')),
      chain.next('machineDataStored'),
      chain.next('machineDataReceived'),
      chain.next('jobEnded', job('j1')),
      chain.next('jobStarted', { ...job('j2'), quantity: 1 }),
      chain.next('jobFailed', job('j2')),
      chain.next('jobStarted', { ...job('j3'), quantity: 1 }),
      chain.next('jobCancelled', job('j3')),
      chain.next('revocationReceived', { authorizationId: revokedId }),
      chain.next('machineIdle'),
      chain.next('machineOffline'),
    ];
    expect(new Set(events.map((event) => event.kind))).toEqual(new Set(traceEventKinds));
    for (const event of events) {
      const response = await chain.sendStp(ctx(), event);
      expect(response.statusCode, response.body).toBe(200);
    }
    const parts = await ctx().call('GET', `/ui/part/list?dsiId=${world.revision.dsiId}&numberOfItems=50`, {
      token: await ctx().adminToken(),
    });
    const list = parts.json<TPage<TPart>>().data;
    made = list.find((part) => part.jobId === 'j1')!;
    failed = list.find((part) => part.jobId === 'j2')!;
  });

  it('needs a session; the part export is ADMIN only; an unknown part is partNotPresent', async () => {
    expectToken(await ctx().call('GET', `/ui/part/epcis?partId=${made.id}`), 401, 'invalidSessionToken');
    expectToken(await ctx().call('GET', '/ui/event/epcis'), 401, 'invalidSessionToken');
    const { token } = await ctx().createUser();
    expectToken(await ctx().call('GET', `/ui/part/epcis?partId=${made.id}`, { token }), 403, 'actionNotAllowed');
    expect((await ctx().call('GET', '/ui/event/epcis', { token })).statusCode).toBe(200);
    const admin = await ctx().adminToken();
    expectToken(await ctx().call('GET', `/ui/part/epcis?partId=${randomUUID()}`, { token: admin }), 420, 'partNotPresent');
    expectToken(await ctx().call('GET', '/ui/event/epcis?dsiId=nope', { token: admin }), 420, 'packageNotPresent');
  });

  it('exports an event search with every kind, valid EPCIS 2.0, each event hashed as the oracle hashes it', async () => {
    const response = await ctx().call('GET', '/ui/event/epcis?numberOfItems=500', { token: await ctx().adminToken() });
    expect(response.statusCode, response.body).toBe(200);
    const document = response.json<TEpcisDocument>();
    expectVerifiedDocument(document);
    const kinds = document.epcisBody.eventList.map((event) => event['manifold:kind']);
    expect(new Set(kinds)).toEqual(new Set(traceEventKinds));
    const inspected = document.epcisBody.eventList.find((event) => event['manifold:kind'] === 'qualityCheckFailed');
    expect(inspected).toMatchObject({
      type: 'ObjectEvent',
      action: 'OBSERVE',
      bizStep: 'inspecting',
      disposition: 'non_conformant',
      epcList: [`urn:uuid:${world.deviceId}`],
      readPoint: { id: `urn:uuid:${world.deviceId}` },
      'manifold:data': '{"width":"0012"}',
    });
    const ofDesign = await ctx().call('GET', `/ui/event/epcis?dsiId=${world.revision.dsiId}&numberOfItems=500`, {
      token: await ctx().adminToken(),
    });
    expect(
      ofDesign.json<TEpcisDocument>().epcisBody.eventList.every((event) => event['manifold:dsiId'] === world.revision.dsiId),
    ).toBe(true);
  });

  it('exports a part\u2019s history: its build, the part, every event of its job', async () => {
    const admin = await ctx().adminToken();
    const response = await ctx().call('GET', `/ui/part/epcis?partId=${made.id}`, { token: admin });
    expect(response.statusCode, response.body).toBe(200);
    const document = response.json<TEpcisDocument>();
    expectVerifiedDocument(document);
    const [build, part, ...observed] = document.epcisBody.eventList;
    expect(build).toMatchObject({
      type: 'TransformationEvent',
      outputEPCList: [`urn:uuid:${made.id}`],
      transformationID: `urn:uuid:${made.buildId}`,
      'manifold:dsiId': world.revision.dsiId,
      'manifold:jobId': 'j1',
    });
    expect(part).toMatchObject({ type: 'ObjectEvent', action: 'ADD', disposition: 'active', 'manifold:serialNumber': 'E-1' });
    expect(observed.map((event) => event['manifold:eventId'])).toEqual(made.traceEvents);

    const lost = (await ctx().call('GET', `/ui/part/epcis?partId=${failed.id}`, { token: admin })).json<TEpcisDocument>();
    expectVerifiedDocument(lost);
    expect(lost.epcisBody.eventList[1]).toMatchObject({ action: 'DELETE', bizStep: 'destroying', disposition: 'destroyed' });
  });

  it('a part that failed inspection was still made: its export commissions it, it is not destroyed', async () => {
    const admin = await ctx().adminToken();
    const form = multipartEntries([
      ['inspection', JSON.stringify({ partId: made.id, result: 'failed', reason: 'warped', technician: 'Grace' })],
    ]);
    const inspected = await ctx().app.inject({
      method: 'POST',
      url: '/ui/qms/inspection',
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.body,
    });
    expect(inspected.statusCode, inspected.body).toBe(200);
    const document = (await ctx().call('GET', `/ui/part/epcis?partId=${made.id}`, { token: admin })).json<TEpcisDocument>();
    expectVerifiedDocument(document);
    expect(document.epcisBody.eventList[1]).toMatchObject({
      action: 'ADD',
      bizStep: 'commissioning',
      disposition: 'active',
      'manifold:serialNumber': 'E-1',
      'manifold:partQmsState': 'FAILURE',
    });
  });
});
