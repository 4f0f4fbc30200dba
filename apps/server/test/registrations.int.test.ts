import { randomUUID, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TManageInstance, TProtectInstance, TTraceInstance } from '@manifold/contract';
import { signDetachedJws } from '../src/crypto/jws.js';
import { JobRunner } from '../src/jobs/job-runner.js';
import { JobsService } from '../src/jobs/jobs.service.js';
import {
  REGISTRATION_CANCEL,
  REGISTRATION_NOTICE,
  enqueueRegistrationNotice,
  registrationNoticeJob,
} from '../src/modules/registrations/registration-notice.job.js';
import { createCsr } from '../src/crypto/csr.js';
import type { DevelopmentCa, IssueOptions } from '../src/crypto/development-ca.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { LicenceUsageRepository } from '../src/modules/licence/licence.repository.js';
import { OutboxRepository } from '../src/modules/outbox/outbox.repository.js';
import { PeerMessagesService } from '../src/modules/outbox/peer-messages.service.js';
import { licenceSettingKeys } from '../src/modules/settings/server-settings.js';
import { SettingsRepository } from '../src/modules/settings/settings.repository.js';
import { multipartForm } from './helpers/multipart.js';
import { testMachine } from './helpers/packages-fixtures.js';
import {
  joinNetwork,
  joinWithApp,
  LOOPBACK_PEERS,
  okCall,
  startPeer,
  suitePeer,
  type PeerProcess,
} from './helpers/peer-network.js';
import { freePort } from './helpers/server-process.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';
import { DAY_MS, issue, peerIdentity, testRoot } from './helpers/test-pki.js';

/** A server process of its own (SQLite) that this suite's app registers with. */
const peer = await suitePeer('Registrations Network Root', 'Peer Site');
const { localUrl } = peer;

/** A Manage instance that exists only as keys: it signs registrations and notices itself. */
async function handMadePeer(manageUrl: string, ca: DevelopmentCa = peer.root) {
  const signing = await peerIdentity(ca, { purpose: 'signing' });
  const encryption = await peerIdentity(ca, { purpose: 'encryption' });
  const sign = async (aplType: string, apl: object) => ({
    aplType,
    apl,
    signature: await signDetachedJws(canonicalJson(apl), signing.privateKeyPem),
  });
  /** Another certificate of its signing key, from `ca`, valid as `validity` says. */
  const reissue = async (validity: IssueOptions) =>
    issue(
      ca,
      await createCsr({ siteName: 'Peer', service: 'manage', purpose: 'signing', privateKeyPem: signing.privateKeyPem }),
      validity,
    );
  const registration = (registrationNonce = randomUUID()) => ({
    registrationNonce,
    manageSiteName: 'Hand Made',
    manageUrl,
    signingCertificate: signing.certificatePem,
    encryptionCertificate: encryption.certificatePem,
    dateCreated: new Date().toISOString(),
  });
  return { sign, registration, reissue };
}

async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** What a stand-in peer got: the path and the `apl` of each message. */
type Received = { path: string; apl: { registrationState?: string } }[];

/**
 * A peer that exists only as a loopback server while `run` runs: it records each message and
 * answers what `answer` says about it (a string as it is), unless told that it took the state.
 */
async function withStubPeer(
  run: (url: string, received: Received) => Promise<void>,
  answer: (apl: Received[number]['apl']) => { status: number; body: unknown } = (apl) => ({
    status: 200,
    body: { registrationId: randomUUID(), registrationState: apl.registrationState },
  }),
): Promise<void> {
  const received: Received = [];
  const stub = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const { apl } = JSON.parse(text || '{}') as { apl: Received[number]['apl'] };
      received.push({ path: request.url ?? '', apl });
      const { status, body } = answer(apl);
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(stub.address() as AddressInfo).port}`, received);
  } finally {
    await new Promise((resolve) => stub.close(resolve));
  }
}

describeEachDatabase(
  'manage registrations',
  (ctx) => {
    let admin: string;
    let user: string;
    const call = (method: 'GET' | 'POST', url: string, body?: unknown, token = admin) =>
      ctx().call(method, url, { token, ...(body !== undefined ? { body } : {}) });
    const peerList = async (registrationType: string) =>
      ((await peer.call('GET', `/ui/manage/list?registrationType=${registrationType}`)).json() as { data: TManageInstance[] })
        .data;

    /** Runs the due notice jobs (cancellations, decisions told again) of this app (the test app's own runner is not started). */
    const deliverNotices = async () => {
      const { database, credentials } = ctx().app.services;
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      const runner = new JobRunner(database, new JobsService(database), { ...ctx().config.jobs, log: quiet });
      const notices = registrationNoticeJob(database, credentials, ctx().config.peers);
      runner.register(REGISTRATION_CANCEL, notices);
      runner.register(REGISTRATION_NOTICE, notices);
      return runner.runDue();
    };

    /** The state this app stores for a registration. */
    const storedState = async (id: string) =>
      (
        await ctx()
          .app.services.database.db.selectFrom('manage_instances')
          .select('registration_state')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).registration_state;

    /** A hand-made peer at `manageUrl` registers with this app (as its downstream Manage); Pending here. */
    const handMadeRegistration = async (manageUrl: string) => {
      const made = await handMadePeer(manageUrl);
      const registration = made.registration();
      const added = await ctx().call('POST', '/apl/registration/add', {
        body: await made.sign('downstreamManage', registration),
      });
      expect(added.statusCode, added.body).toBe(200);
      return { made, registration, id: (added.json() as { registrationId: string }).registrationId };
    };

    beforeAll(async () => {
      ({ admin, user } = await joinWithApp(ctx(), peer));
    }, 60_000);

    describe('access', () => {
      it('should require authentication, and ADMIN for add, delete and approve', async () => {
        const id = randomUUID();
        const calls: ['GET' | 'POST', string, unknown][] = [
          ['GET', '/ui/manage/list', undefined],
          ['POST', '/ui/manage/add', { manageUrl: peer.url }],
          ['POST', '/ui/manage/delete', { id }],
          ['POST', '/ui/manage/approve', { id, approve: true }],
        ];
        for (const [method, url, body] of calls) {
          expect((await ctx().call(method, url, body !== undefined ? { body } : {})).statusCode, url).toBe(401);
        }
        for (const [method, url, body] of calls.slice(1)) {
          expectToken(await call(method, url, body, user), 403, 'actionNotAllowed');
        }
        expect((await call('GET', '/ui/manage/list?registrationType=all', undefined, user)).statusCode).toBe(200);
      });
    });

    describe('POST /ui/manage/add', () => {
      it('refuses addresses outside PEER_ALLOWED_HOSTS and other schemes with httpClientBadUrl', async () => {
        for (const manageUrl of ['http://169.254.169.254/', 'http://10.0.0.1:8080', 'ftp://127.0.0.1/', 'nonsense']) {
          expectToken(await call('POST', '/ui/manage/add', { manageUrl }), 420, 'httpClientBadUrl');
        }
      });

      it('answers certificateExchangeCommunicationFailed when nothing answers at the address', async () => {
        expectToken(
          await call('POST', '/ui/manage/add', { manageUrl: await closedPortUrl() }),
          420,
          'certificateExchangeCommunicationFailed',
        );
      });

      it('answers registrationExchangeInvalidTarget for this instance itself', async () => {
        expectToken(await call('POST', '/ui/manage/add', { manageUrl: localUrl }), 420, 'registrationExchangeInvalidTarget');
      });

      it('asks nothing of the peer when the operating licence has no room for another instance', async () => {
        const { db } = ctx().app.services.database;
        const used = await new LicenceUsageRepository(db).peerInstances();
        const terms = { limits: { peerInstances: used }, addons: ['designArchive', 'quality', 'secureRepository'] };
        await new SettingsRepository(db).set(licenceSettingKeys.terms, JSON.stringify(terms));
        try {
          const before = await peerList('upStreamManage');
          expectToken(await call('POST', '/ui/manage/add', { manageUrl: peer.url }), 420, 'licencePeerInstanceLimitReached');
          expect(await peerList('upStreamManage')).toEqual(before);
          expect((await call('GET', '/ui/manage/list?registrationType=all')).json()).toMatchObject({ totalNumOfItems: used });
        } finally {
          await db.deleteFrom('settings').where('key', '=', licenceSettingKeys.terms).execute();
        }
      });

      it('registers with the peer (downStreamManage by default); the peer approves; both sides hold it', async () => {
        const added = await call('POST', '/ui/manage/add', { manageUrl: `${peer.url}/` });
        expect(added.statusCode, added.body).toBe(200);
        const ours = added.json() as TManageInstance;
        expect(ours).toMatchObject({
          manageType: 'downStreamManage',
          upstream: false,
          initiator: true,
          registrationState: 'Pending',
          manageSiteName: 'Peer Site',
          manageURL: peer.url,
        });
        expect(ours.cryptoCertsForSigning).toEqual([expect.objectContaining({ keyUse: 'signing', companyName: 'Peer Site' })]);
        const theirs = (await peerList('upStreamManage')).find((entry) => entry.registrationNonce === ours.registrationNonce)!;
        expect(theirs).toMatchObject({
          manageType: 'upStreamManage',
          upstream: true,
          initiator: false,
          registrationState: 'Pending',
          manageURL: localUrl,
        });

        expectToken(
          await call('POST', '/ui/manage/approve', { id: ours.manageId, approve: true }),
          420,
          'registrationInitiatorCantApprove',
        );
        expectToken(await call('POST', '/ui/manage/add', { manageUrl: peer.url }), 420, 'registrationExchangeAlreadyRegistered');

        const approved = await peer.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } });
        expect(approved.statusCode, approved.body).toBe(200);
        expect(approved.json()).toMatchObject({ registrationState: 'Approved' });
        const list = (await call('GET', '/ui/manage/list')).json() as { data: TManageInstance[] };
        expect(list.data.find((entry) => entry.manageId === ours.manageId)).toMatchObject({
          registrationState: 'Approved',
          version: 2,
        });
        expect(
          ((await call('GET', '/ui/manage/list?registrationType=upStreamManage')).json() as { data: TManageInstance[] }).data,
        ).not.toContainEqual(expect.objectContaining({ manageId: ours.manageId }));
        expectToken(
          await peer.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } }),
          420,
          'registrationAlreadyApproved',
        );

        // Deleting here cancels there, through a job.
        expect((await call('POST', '/ui/manage/delete', { id: ours.manageId })).statusCode).toBe(200);
        expectToken(await call('POST', '/ui/manage/delete', { id: ours.manageId }), 420, 'registrationNotPresent');
        expect((await peerList('upStreamManage')).find((entry) => entry.manageId === theirs.manageId)).toMatchObject({
          registrationState: 'Approved',
        });
        expect(await deliverNotices()).toBe(1);
        expect((await peerList('upStreamManage')).find((entry) => entry.manageId === theirs.manageId)).toMatchObject({
          registrationState: 'Cancelled',
        });
        expectToken(
          await peer.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: false } }),
          420,
          'registrationHasBeenCanceled',
        );
      });
    });

    describe('Trace registrations', () => {
      const peerTraces = async () =>
        ((await peer.call('GET', '/ui/trace/list?numberOfItems=100')).json() as { data: TTraceInstance[] }).data;

      it('should require authentication; every role may list, add, approve and delete', async () => {
        const id = randomUUID();
        const calls: ['GET' | 'POST', string, unknown][] = [
          ['GET', '/ui/trace/list', undefined],
          ['POST', '/ui/trace/add', { traceUrl: peer.url }],
          ['POST', '/ui/trace/delete', { id }],
          ['POST', '/ui/trace/approve', { id, approve: true }],
        ];
        for (const [method, url, body] of calls) {
          expect((await ctx().call(method, url, body !== undefined ? { body } : {})).statusCode, url).toBe(401);
        }
        expect((await call('GET', '/ui/trace/list', undefined, user)).statusCode).toBe(200);
        expectToken(await call('POST', '/ui/trace/delete', { id }, user), 420, 'registrationNotPresent');
        expectToken(await call('POST', '/ui/trace/approve', { id, approve: true }, user), 420, 'registrationNotPresent');
        expectToken(await call('POST', '/ui/trace/add', { traceUrl: 'http://169.254.169.254/' }, user), 420, 'httpClientBadUrl');
      });

      it('a user registers with a Trace instance, which approves; deleting cancels there', async () => {
        const added = await call('POST', '/ui/trace/add', { traceUrl: peer.url }, user);
        expect(added.statusCode, added.body).toBe(200);
        const ours = added.json() as TTraceInstance;
        expect(ours).toMatchObject({
          traceSiteName: 'Peer Site',
          traceURL: peer.url,
          initiator: true,
          registrationState: 'Pending',
        });
        const theirs = (await peerTraces()).find((entry) => entry.traceURL === localUrl && !entry.initiator)!;
        expect(theirs).toMatchObject({ registrationState: 'Pending' });
        expectToken(
          await call('POST', '/ui/trace/add', { traceUrl: peer.url }, user),
          420,
          'registrationExchangeAlreadyRegistered',
        );
        // A Trace registration is not a Manage instance.
        expectToken(await call('POST', '/ui/manage/approve', { id: ours.id, approve: true }), 420, 'registrationNotPresent');
        const manageAll = (await call('GET', '/ui/manage/list?registrationType=all&numberOfItems=100')).json() as {
          data: TManageInstance[];
        };
        expect(manageAll.data.map((entry) => entry.manageId)).not.toContain(ours.id);
        expectToken(
          await call('POST', '/ui/trace/approve', { id: ours.id, approve: true }, user),
          420,
          'registrationInitiatorCantApprove',
        );

        const rejected = await peer.call('POST', '/ui/trace/approve', { body: { id: theirs.id, approve: false } });
        expect(rejected.statusCode, rejected.body).toBe(200);
        const list = (await call('GET', '/ui/trace/list', undefined, user)).json() as { data: TTraceInstance[] };
        expect(list.data.find((entry) => entry.id === ours.id)).toMatchObject({ registrationState: 'Rejected' });
        expectToken(
          await peer.call('POST', '/ui/trace/approve', { body: { id: theirs.id, approve: false } }),
          420,
          'registrationAlreadyRejected',
        );
        expect((await peer.call('POST', '/ui/trace/approve', { body: { id: theirs.id, approve: true } })).statusCode).toBe(200);
        expect(
          ((await call('GET', '/ui/trace/list', undefined, user)).json() as { data: TTraceInstance[] }).data.find(
            (entry) => entry.id === ours.id,
          ),
        ).toMatchObject({
          registrationState: 'Approved',
        });

        expect((await call('POST', '/ui/trace/delete', { id: ours.id }, user)).statusCode).toBe(200);
        expect(await deliverNotices()).toBe(1);
        expect((await peerTraces()).find((entry) => entry.id === theirs.id)).toMatchObject({ registrationState: 'Cancelled' });
      });
    });

    describe('Protect registrations', () => {
      const protects = async () =>
        ((await call('GET', '/ui/protect/list?numberOfItems=100')).json() as { data: TProtectInstance[] }).data;

      it('should require authentication and ADMIN', async () => {
        const id = randomUUID();
        const calls: ['GET' | 'POST', string, unknown][] = [
          ['POST', '/ui/protect/tokens', undefined],
          ['GET', '/ui/protect/list', undefined],
          ['POST', '/ui/protect/delete', { id }],
          ['POST', '/ui/protect/approve', { id, approve: true }],
        ];
        for (const [method, url, body] of calls) {
          expect((await ctx().call(method, url, body !== undefined ? { body } : {})).statusCode, url).toBe(401);
          expectToken(await call(method, url, body, user), 403, 'actionNotAllowed');
        }
      });

      it('a Protect registers with the token pair; an admin approves, rejects and deletes it', async () => {
        const tokens = (await call('POST', '/ui/protect/tokens')).json() as { token1: string; token2: string };
        expect(tokens.token1).not.toBe(tokens.token2);
        const entry = () => protects().then((list) => list.find((item) => item.protectId === tokens.token1)!);
        expect(await entry()).toMatchObject({ name: '', fss: false, registrationState: 'Pending', userId: 'admin' });
        const { id } = await entry();
        expectToken(await call('POST', '/ui/protect/approve', { id, approve: true }), 420, 'registrationNotPresent');

        const made = await handMadePeer(await closedPortUrl());
        const { signingCertificate, encryptionCertificate } = made.registration();
        const apl = { ...tokens, name: 'Design Owner', signingCertificate, encryptionCertificate };
        const register = async (body: object) =>
          ctx().call('POST', '/apl/registration/add', { body: await made.sign('protect', body) });
        expectToken(await register({ ...apl, token2: 'wrong' }), 420, 'fssTokenNotFound', 'apl.token1');
        expectToken(await register({ ...apl, token1: 'unknown' }), 420, 'fssTokenNotFound', 'apl.token1');
        const forged = await made.sign('protect', apl);
        expectToken(
          await ctx().call('POST', '/apl/registration/add', { body: { ...forged, apl: { ...apl, name: 'Someone Else' } } }),
          420,
          'registrationSignatureInvalid',
        );
        const registered = await register(apl);
        expect(registered.statusCode, registered.body).toBe(200);
        expect(registered.json()).toEqual({ registrationId: id, registrationState: 'Pending' });
        expectToken(await register(apl), 420, 'registrationExchangeAlreadyRegistered');
        expect(await entry()).toMatchObject({ name: 'Design Owner', fss: true, registrationState: 'Pending' });

        expect((await call('POST', '/ui/protect/approve', { id, approve: true })).json()).toMatchObject({
          registrationState: 'Approved',
        });
        expectToken(await call('POST', '/ui/protect/approve', { id, approve: true }), 420, 'registrationAlreadyApproved');
        expect((await call('POST', '/ui/protect/approve', { id, approve: false })).json()).toMatchObject({
          registrationState: 'Rejected',
        });
        expectToken(await call('POST', '/ui/protect/approve', { id, approve: false }), 420, 'registrationAlreadyRejected');
        expect((await call('POST', '/ui/protect/delete', { id })).statusCode).toBe(200);
        expectToken(await call('POST', '/ui/protect/delete', { id }), 420, 'registrationNotPresent');
        expect(await entry()).toBeUndefined();
      });
    });

    describe('POST /ui/enforce/apl/upload', () => {
      const upload = (content: string, token: string | undefined = admin) => {
        const { body, headers } = multipartForm({ file: { filename: 'machine.apl.json', content } });
        return ctx().call('POST', '/ui/enforce/apl/upload', { ...(token ? { token } : {}), body, headers });
      };

      it('registers a machine from its signed APL file with the checks of /apl/registration/add', async () => {
        const machine = await testMachine(peer.root);
        const file = JSON.stringify(await machine.request());
        expect((await upload(file, '')).statusCode).toBe(401);
        expectToken(await upload(file, user), 403, 'actionNotAllowed');
        const registered = await upload(file);
        expect(registered.statusCode, registered.body).toBe(200);
        const { deviceId } = registered.json() as { deviceId: string };
        expect(registered.json()).toMatchObject({ registrationState: 'Pending' });
        const device = await call('GET', `/ui/device/fetch?deviceId=${deviceId}`);
        expect(device.json()).toMatchObject({ registrationState: 'Pending' });
        expectToken(await upload(file), 420, 'registrationExchangeAlreadyRegistered');

        const other = await testMachine(peer.root);
        const request = await other.request();
        expectToken(await upload(JSON.stringify({ ...request, signature: undefined })), 420, 'registrationSignatureInvalid');
        expectToken(
          await upload(JSON.stringify({ ...request, aplType: 'upstreamManage' })),
          420,
          'registrationExchangeInvalidApl',
          'aplType',
        );
        expectToken(await upload('not json'), 420, 'registrationExchangeInvalidApl', 'file');
        const { body, headers } = multipartForm({ note: 'no file' });
        expectToken(
          await ctx().call('POST', '/ui/enforce/apl/upload', { token: admin, body, headers }),
          420,
          'uploadFileMissing',
        );
      });
    });

    describe('POST /ui/enforce/apl/upload: an older file', () => {
      const upload = (content: string) => {
        const { body, headers } = multipartForm({ file: { filename: 'machine.apl.json', content } });
        return ctx().call('POST', '/ui/enforce/apl/upload', { token: admin, body, headers });
      };

      it('takes an APL file signed long ago or carrying no dateCreated, which over the network is refused as stale', async () => {
        for (const dateCreated of [new Date(Date.now() - 30 * DAY_MS).toISOString(), undefined]) {
          const machine = await testMachine(peer.root);
          const apl = dateCreated === undefined ? machine.apl : { ...machine.apl, dateCreated };
          const record = await machine.request({ apl });
          expectToken(
            await ctx().call('POST', '/apl/registration/add', { body: record }),
            420,
            'registrationExchangeInvalidApl',
            'apl.dateCreated',
          );
          const registered = await upload(JSON.stringify(record));
          expect(registered.statusCode, registered.body).toBe(200);
          const { deviceId } = registered.json() as { deviceId: string };
          expect(registered.json()).toEqual({ deviceId, registrationState: 'Pending' });
          const stored = await ctx()
            .app.services.database.db.selectFrom('devices')
            .select(['id', 'registration_state'])
            .where('identity_id', '=', machine.apl.deviceIdentity.id)
            .execute();
          expect(stored).toEqual([{ id: deviceId, registration_state: 'Pending' }]);
        }
      });
    });

    describe('POST /apl/registration/add from a Manage peer', () => {
      const register = (body: unknown) => ctx().call('POST', '/apl/registration/add', { body });

      it('stores a signed registration Pending; the same record twice is duplicateAplReceived', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const message = await made.sign('upstreamManage', made.registration());
        const stored = register(message);
        expect((await stored).statusCode, (await stored).body).toBe(200);
        expect((await stored).json()).toMatchObject({ registrationState: 'Pending' });
        expectToken(await register(message), 420, 'duplicateAplReceived');
        expectToken(
          await register(await made.sign('upstreamManage', made.registration())),
          420,
          'registrationExchangeAlreadyRegistered',
        );
      });

      it('refuses a bad record, a forged signature, a chain from another network and an address outside the allow-list', async () => {
        const made = await handMadePeer(await closedPortUrl());
        expectToken(
          await register({ aplType: 'downstreamManage', apl: { registrationNonce: 'x' }, signature: 'a..b' }),
          420,
          'registrationExchangeInvalidApl',
        );
        const forged = await made.sign('downstreamManage', made.registration());
        expectToken(
          await register({ ...forged, apl: { ...(forged.apl as object), manageSiteName: 'Someone Else' } }),
          420,
          'registrationSignatureInvalid',
        );
        expectToken(await register({ ...forged, signature: undefined }), 420, 'registrationSignatureInvalid');
        const stranger = await handMadePeer(await closedPortUrl(), await testRoot('Stranger Root'));
        expectToken(
          await register(await stranger.sign('downstreamManage', stranger.registration())),
          420,
          'certificateExchangeChainVerifyFail',
        );
        const outside = await handMadePeer('http://192.168.1.10/');
        expectToken(await register(await outside.sign('downstreamManage', outside.registration())), 420, 'httpClientBadUrl');
        expectToken(await register({ ...forged, aplType: 'sipc' }), 420, 'registrationExchangeInvalidApl');
        expectToken(await register({ ...forged, aplType: 'protect' }), 420, 'registrationExchangeInvalidApl');
      });

      /** The registration this app stores under a registration nonce. */
      const storedByNonce = (registrationNonce: string) =>
        ctx()
          .app.services.database.db.selectFrom('manage_instances')
          .select(['id', 'registration_state'])
          .where('registration_nonce', '=', registrationNonce)
          .executeTakeFirst();

      it('refuses a registration not signed within five minutes (registrationExchangeInvalidApl on apl.dateCreated)', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const minutesAway = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
        for (const dateCreated of [minutesAway(-6), minutesAway(-60 * 24 * 30), minutesAway(6), 'yesterday', '']) {
          const registration = { ...made.registration(), dateCreated };
          expectToken(
            await register(await made.sign('upstreamManage', registration)),
            420,
            'registrationExchangeInvalidApl',
            'apl.dateCreated',
          );
          expect(await storedByNonce(registration.registrationNonce)).toBeUndefined();
        }
        const registration = { ...made.registration(), dateCreated: minutesAway(-4) };
        expect((await register(await made.sign('upstreamManage', registration))).statusCode).toBe(200);
      });

      it('a registration replayed after it was deleted here registers nothing; a new one from the peer does', async () => {
        await withStubPeer(async (url, received) => {
          const made = await handMadePeer(url);
          const registration = made.registration();
          const message = await made.sign('upstreamManage', registration);
          const added = await register(message);
          expect(added.statusCode, added.body).toBe(200);
          const { registrationId } = added.json() as { registrationId: string };
          expect((await call('POST', '/ui/manage/delete', { id: registrationId })).statusCode).toBe(200);
          expect(await deliverNotices()).toBe(1);
          expect(received.map((entry) => entry.apl.registrationState)).toEqual(['Cancelled']);

          expectToken(await register(message), 420, 'duplicateAplReceived');
          expect(await storedByNonce(registration.registrationNonce)).toBeUndefined();
          const again = await register(await made.sign('upstreamManage', made.registration()));
          expect(again.json()).toMatchObject({ registrationState: 'Pending' });
        });
      });
    });

    describe('POST /ui/manage/approve', () => {
      it('leaves the state unchanged when the peer cannot be told (registrationRemoteApprovalFailed / …RejectFailed)', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const { registrationId } = (
          await ctx().call('POST', '/apl/registration/add', { body: await made.sign('downstreamManage', made.registration()) })
        ).json() as {
          registrationId: string;
        };
        expectToken(
          await call('POST', '/ui/manage/approve', { id: registrationId, approve: true }),
          420,
          'registrationRemoteApprovalFailed',
        );
        expectToken(
          await call('POST', '/ui/manage/approve', { id: registrationId, approve: false }),
          420,
          'registrationRemoteRejectFailed',
        );
        const list = (await call('GET', '/ui/manage/list?registrationType=upStreamManage')).json() as { data: TManageInstance[] };
        expect(list.data.find((entry) => entry.manageId === registrationId)).toBeUndefined();
        const all = (await call('GET', '/ui/manage/list?registrationType=all&numberOfItems=100')).json() as {
          data: TManageInstance[];
        };
        expect(all.data.find((entry) => entry.manageId === registrationId)).toMatchObject({
          registrationState: 'Pending',
          manageType: 'downStreamManage',
        });
      });

      it('a cancellation the peer cannot take is retried by the job runner, its error visible to an admin', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const added = await ctx().call('POST', '/apl/registration/add', {
          body: await made.sign('downstreamManage', made.registration()),
        });
        const { registrationId } = added.json() as { registrationId: string };
        expect((await call('POST', '/ui/manage/delete', { id: registrationId })).statusCode).toBe(200);
        expect(await deliverNotices()).toBe(1);
        const jobs = (await call('GET', '/ui/admin/jobs?state=pending&numberOfItems=100')).json() as {
          data: { kind: string; attempts: number; lastError: string | null; payload: unknown }[];
        };
        const job = jobs.data.find((entry) => entry.kind === 'registrations.cancel');
        expect(job).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/could not be reached/) });
        expect(await deliverNotices()).toBe(0); // waiting for its back-off
      });

      it('answers registrationNotPresent for an unknown id', async () => {
        expectToken(await call('POST', '/ui/manage/approve', { id: randomUUID(), approve: true }), 420, 'registrationNotPresent');
      });

      it('when two decisions race, the one stored is what the peer is left holding, and the other names it', async () => {
        // a peer that takes notices as they arrive (the state of the last one it took stands) and
        // answers the first two of them only when told: the decision it took first is answered first
        const held = new Map<string, string>();
        const arrived: { state: string; answer: () => void }[] = [];
        const waiting: (() => void)[] = [];
        const peerSide = http.createServer((request, response) => {
          let text = '';
          request.on('data', (chunk) => (text += chunk));
          request.on('end', () => {
            const { apl } = JSON.parse(text) as { apl: { registrationNonce: string; registrationState: string } };
            const state = apl.registrationState;
            const refused = held.get(apl.registrationNonce) === state;
            if (!refused) held.set(apl.registrationNonce, state);
            let answered = false;
            const answer = () => {
              if (answered) return;
              answered = true;
              if (refused)
                response.writeHead(420, { 'content-type': 'application/json' }).end(
                  JSON.stringify({
                    errorToken: state === 'Approved' ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected',
                    errorDescription: `The registration is ${state} already`,
                  }),
                );
              else
                response
                  .writeHead(200, { 'content-type': 'application/json' })
                  .end(JSON.stringify({ registrationId: randomUUID(), registrationState: state }));
            };
            arrived.push({ state, answer });
            if (arrived.length > 2) answer();
            for (const wake of waiting.splice(0)) wake();
          });
        });
        const arrivals = (count: number) =>
          new Promise<void>((resolve) => {
            const check = () => (arrived.length >= count ? resolve() : waiting.push(check));
            check();
          });
        await new Promise<void>((resolve) => peerSide.listen(0, '127.0.0.1', resolve));
        try {
          const cases = [
            { aplType: 'downstreamManage', url: '/ui/manage/approve', firstApproves: false },
            { aplType: 'trace', url: '/ui/trace/approve', firstApproves: true },
          ];
          for (const { aplType, url, firstApproves } of cases) {
            arrived.length = 0;
            const made = await handMadePeer(`http://127.0.0.1:${(peerSide.address() as AddressInfo).port}`);
            const registration = made.registration();
            const added = await ctx().call('POST', '/apl/registration/add', { body: await made.sign(aplType, registration) });
            const { registrationId: id } = added.json() as { registrationId: string };

            const first = call('POST', url, { id, approve: firstApproves });
            await arrivals(1);
            const second = call('POST', url, { id, approve: !firstApproves });
            await arrivals(2);
            arrived[0]!.answer();
            const won = firstApproves ? 'Approved' : 'Rejected';
            expect((await first).json()).toMatchObject({ registrationState: won });
            arrived[1]!.answer();
            expectToken(
              await second,
              420,
              firstApproves ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected',
              'approve',
            );
            const stored = await ctx()
              .app.services.database.db.selectFrom('manage_instances')
              .select('registration_state')
              .where('id', '=', id)
              .executeTakeFirstOrThrow();
            expect(stored.registration_state).toBe(won);
            // the peer took the losing decision last; a job tells it again the one that stands
            expect(arrived.map((notice) => notice.state)).toHaveLength(2);
            await deliverNotices();
            expect(arrived.map((notice) => notice.state)).toEqual(
              firstApproves ? ['Approved', 'Rejected', 'Approved'] : ['Rejected', 'Approved', 'Rejected'],
            );
            expect(held.get(registration.registrationNonce)).toBe(won);
          }
        } finally {
          for (const notice of arrived) notice.answer();
          await new Promise((resolve) => peerSide.close(resolve));
        }
      });
      it('a peer that answers 200 without saying it holds the decision was not told: nothing changes', async () => {
        const answers = ['not json', '{}', JSON.stringify({ registrationId: randomUUID(), registrationState: 'Pending' })];
        for (const body of answers) {
          await withStubPeer(
            async (url, received) => {
              const { id } = await handMadeRegistration(url);
              expectToken(
                await call('POST', '/ui/manage/approve', { id, approve: true }),
                420,
                'registrationRemoteApprovalFailed',
              );
              expectToken(
                await call('POST', '/ui/manage/approve', { id, approve: false }),
                420,
                'registrationRemoteRejectFailed',
              );
              expect(received).toHaveLength(2);
              expect(await storedState(id)).toBe('Pending');
            },
            () => ({ status: 200, body }),
          );
        }
      });

      it('a peer that answers it holds the decision already counts as told (an earlier answer was lost)', async () => {
        const holdingIt = ({ registrationState }: { registrationState?: string }) => ({
          status: 420,
          body: {
            errorToken: registrationState === 'Approved' ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected',
            errorDescription: `The registration is ${registrationState} already`,
          },
        });
        await withStubPeer(async (url, received) => {
          const { id } = await handMadeRegistration(url);
          const stored = () => storedState(id);
          const approved = await call('POST', '/ui/manage/approve', { id, approve: true });
          expect(approved.statusCode, approved.body).toBe(200);
          expect(approved.json()).toMatchObject({ registrationState: 'Approved' });
          expect(await stored()).toBe('Approved');
          const rejected = await call('POST', '/ui/manage/approve', { id, approve: false });
          expect(rejected.json()).toMatchObject({ registrationState: 'Rejected' });
          expect(await stored()).toBe('Rejected');
          expect(received.map(({ apl }) => apl.registrationState)).toEqual(['Approved', 'Rejected']);
        }, holdingIt);
      });

      it('a decision told again by a job is not sent once another decision is stored', async () => {
        await withStubPeer(async (url, received) => {
          const { registration, id } = await handMadeRegistration(url);
          expect((await call('POST', '/ui/manage/approve', { id, approve: true })).json()).toMatchObject({
            registrationState: 'Approved',
          });
          const { database } = ctx().app.services;
          const row = await database.db.selectFrom('manage_instances').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
          // queued while Approved stood (as a lost race queues it), run after a rejection was stored
          await enqueueRegistrationNotice(database.db, database.dialect, row, 'upstreamManage', 'Approved');
          expect((await call('POST', '/ui/manage/approve', { id, approve: false })).json()).toMatchObject({
            registrationState: 'Rejected',
          });
          await deliverNotices();
          const jobs = (await call('GET', '/ui/admin/jobs?numberOfItems=100')).json() as {
            data: { kind: string; state: string; payload: { registrationNonce?: string } }[];
          };
          expect(
            jobs.data.filter(
              (job) => job.kind === 'registrations.notice' && job.payload.registrationNonce === registration.registrationNonce,
            ),
          ).toEqual([expect.objectContaining({ state: 'done' })]);
          expect(received.map(({ apl }) => apl.registrationState)).toEqual(['Approved', 'Rejected']);
        });
      });

      it('a decision that lost the race is told again by a job until the peer, down meanwhile, is back and holds it', async () => {
        // a real peer behind a proxy that holds the answers to the first two decisions until released
        const peerPort = await freePort();
        const held: { answer: () => void }[] = [];
        const waiting: (() => void)[] = [];
        const proxy = http.createServer((request, response) => {
          const forward = http.request(
            { host: '127.0.0.1', port: peerPort, method: request.method, path: request.url, headers: request.headers },
            (answer) => {
              const chunks: Buffer[] = [];
              answer.on('data', (chunk: Buffer) => chunks.push(chunk));
              answer.on('end', () => {
                const send = () => {
                  if (!response.headersSent)
                    response.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
                };
                if (request.url !== '/apl/registration/update' || held.length >= 2) return send();
                held.push({ answer: send });
                for (const wake of waiting.splice(0)) wake();
              });
            },
          );
          forward.on('error', () => response.destroy()); // the peer is down: the connection drops
          request.pipe(forward);
        });
        await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
        const arrivals = (count: number) =>
          new Promise<void>((resolve) => {
            const check = () => (held.length >= count ? resolve() : waiting.push(check));
            check();
          });
        const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-racing-peer-'));
        const env = {
          DATA_DIR: dataDir,
          PORT: String(peerPort),
          PUBLIC_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        };
        let other: PeerProcess | undefined = await startPeer('Racing Site', env);
        try {
          await joinNetwork(other.call, peer.root);
          const asked = await okCall<TManageInstance>(other, 'POST', '/ui/manage/add', { manageUrl: localUrl });
          const theirState = async () =>
            (
              await okCall<{ data: TManageInstance[] }>(other!, 'GET', '/ui/manage/list?registrationType=all&numberOfItems=100')
            ).data.find((entry) => entry.manageId === asked.manageId)?.registrationState;
          const all = (await call('GET', '/ui/manage/list?registrationType=all&numberOfItems=100')).json() as {
            data: TManageInstance[];
          };
          const id = all.data.find((entry) => entry.registrationNonce === asked.registrationNonce)!.manageId;

          const first = call('POST', '/ui/manage/approve', { id, approve: true });
          await arrivals(1);
          const second = call('POST', '/ui/manage/approve', { id, approve: false });
          await arrivals(2);
          held[0]!.answer();
          expect((await first).json()).toMatchObject({ registrationState: 'Approved' });
          await other.server.stop(); // down when the losing side finds out
          other = undefined;
          held[1]!.answer();
          expectToken(await second, 420, 'registrationAlreadyApproved', 'approve');

          const noticeJobs = async () =>
            (
              (await call('GET', '/ui/admin/jobs?numberOfItems=100')).json() as {
                data: {
                  kind: string;
                  state: string;
                  attempts: number;
                  lastError: string | null;
                  payload: { registrationNonce?: string };
                }[];
              }
            ).data.filter(
              (job) => job.kind === 'registrations.notice' && job.payload.registrationNonce === asked.registrationNonce,
            );
          expect(await noticeJobs()).toEqual([
            expect.objectContaining({
              state: 'pending',
              attempts: 0,
              payload: expect.objectContaining({
                path: '/apl/registration/update',
                registrationState: 'Approved',
                registrationNonce: asked.registrationNonce,
              }),
            }),
          ]);
          await deliverNotices(); // (other tests' jobs may be due as well)
          expect(await noticeJobs()).toEqual([
            expect.objectContaining({ state: 'pending', attempts: 1, lastError: expect.stringMatching(/could not be reached/) }),
          ]);

          other = await startPeer('Racing Site', env);
          expect(await theirState()).toBe('Rejected'); // the losing decision, which it took last
          const { db } = ctx().app.services.database;
          await db
            .updateTable('jobs')
            .set({ run_at: new Date(0).toISOString() })
            .where('kind', '=', 'registrations.notice')
            .execute();
          await deliverNotices();
          expect(await noticeJobs()).toEqual([expect.objectContaining({ state: 'done', attempts: 2 })]);
          expect(await theirState()).toBe('Approved');
          expect(await storedState(id)).toBe('Approved');
        } finally {
          for (const notice of held) notice.answer();
          await other?.server.stop();
          await new Promise((resolve) => proxy.close(resolve));
          await fs.rm(dataDir, { recursive: true, force: true });
        }
      }, 120_000);
    });

    describe('POST /apl/peer/message', () => {
      it('a unique violation while applying a message is not acknowledged as a duplicate: the message is not lost', async () => {
        await withStubPeer(async (url) => {
          const { made, registration, id } = await handMadeRegistration(url);
          expect((await call('POST', '/ui/manage/approve', { id, approve: true })).statusCode).toBe(200);
          // a handler whose write meets a unique key another change holds (not this message's id)
          let conflict = true;
          const applied: string[] = [];
          const { database, credentials, peerRegistrations } = ctx().app.services;
          const messages = new PeerMessagesService(database, peerRegistrations, credentials, {
            event: {
              accepts: () => true,
              apply: async (trx, peer, body) => {
                if (conflict) {
                  const taken = {
                    registration_id: peer.id,
                    message_id: randomUUID(),
                    kind: 'event',
                    received_at: new Date().toISOString(),
                  };
                  await trx.insertInto('peer_messages').values(taken).execute();
                  await trx.insertInto('peer_messages').values(taken).execute();
                }
                applied.push(String((body as { n: string }).n));
              },
            },
          });
          const messageId = randomUUID();
          const message = async () => ({
            ...(await made.sign('downstreamManage', {
              registrationNonce: registration.registrationNonce,
              messageId,
              kind: 'event',
              timestamp: new Date().toISOString(),
              nonce: randomUUID(),
              body: { n: 'one' },
            })),
            aplType: 'downstreamManage' as const,
          });
          await expect(messages.receive(await message(), '127.0.0.1')).rejects.toMatchObject({
            token: 'registrationExchangeInvalidRegistration',
          });
          expect(await new OutboxRepository(database.db, database.dialect).hasMessage(id, messageId)).toBe(false);
          conflict = false;
          expect(await messages.receive(await message(), '127.0.0.1')).toEqual({ messageId, received: 'applied' });
          expect(await messages.receive(await message(), '127.0.0.1')).toEqual({ messageId, received: 'duplicate' });
          expect(applied).toEqual(['one']);
        });
      });
    });

    describe('POST /apl/registration/update and /delete', () => {
      it('needs the registered key, a known nonce, a fresh timestamp and the right state', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const registration = made.registration();
        expect(
          (await ctx().call('POST', '/apl/registration/add', { body: await made.sign('upstreamManage', registration) }))
            .statusCode,
        ).toBe(200);
        const notice = (
          registrationState: string,
          timestamp = new Date().toISOString(),
          registrationNonce = registration.registrationNonce,
        ) => ({
          registrationNonce,
          registrationState,
          timestamp,
          nonce: randomUUID(),
        });
        const update = async (apl: object, path = '/apl/registration/update') =>
          ctx().call('POST', path, { body: await made.sign('upstreamManage', apl) });
        expectToken(await update(notice('Approved', undefined, randomUUID())), 420, 'registrationNotPresent');
        expectToken(
          await update(notice('Approved', new Date(Date.now() - 3_600_000).toISOString())),
          420,
          'registrationExchangeInvalidApl',
        );
        // It asked: it cannot approve its own registration.
        expectToken(await update(notice('Approved')), 420, 'registrationInitiatorCantApprove');
        expectToken(await update(notice('Pending')), 420, 'registrationExchangeInvalidRegistration');
        const other = await handMadePeer(await closedPortUrl());
        const forged = await other.sign('upstreamManage', notice('Cancelled'));
        expectToken(await ctx().call('POST', '/apl/registration/delete', { body: forged }), 420, 'registrationSignatureInvalid');
        expect((await update(notice('Cancelled'), '/apl/registration/delete')).statusCode).toBe(200);
        expectToken(await update(notice('Cancelled'), '/apl/registration/delete'), 420, 'registrationHasBeenCanceled');
      });

      it('refuses a replayed notice with duplicateAplReceived, before anything else', async () => {
        const made = await handMadePeer(await closedPortUrl());
        const registration = made.registration();
        expect(
          (await ctx().call('POST', '/apl/registration/add', { body: await made.sign('downstreamManage', registration) }))
            .statusCode,
        ).toBe(200);
        const signed = await made.sign('downstreamManage', {
          registrationNonce: registration.registrationNonce,
          registrationState: 'Cancelled',
          timestamp: new Date().toISOString(),
          nonce: randomUUID(),
        });
        const first = await ctx().call('POST', '/apl/registration/delete', { body: signed });
        expect(first.statusCode, first.body).toBe(200);
        expectToken(
          await ctx().call('POST', '/apl/registration/delete', { body: signed }),
          420,
          'duplicateAplReceived',
          'apl.nonce',
        );
        expectToken(
          await ctx().call('POST', '/apl/registration/update', { body: signed }),
          420,
          'duplicateAplReceived',
          'apl.nonce',
        );
        const fresh = await made.sign('downstreamManage', { ...(signed.apl as object), nonce: randomUUID() });
        expectToken(await ctx().call('POST', '/apl/registration/delete', { body: fresh }), 420, 'registrationHasBeenCanceled');
      });

      it('refuses notices and messages once the signing certificate registered for the peer has expired', async () => {
        await withStubPeer(async (url) => {
          const { made, registration, id } = await handMadeRegistration(url);
          expect((await call('POST', '/ui/manage/approve', { id, approve: true })).statusCode).toBe(200);
          const { db } = ctx().app.services.database;
          const registered = async (validity: IssueOptions) => {
            const signingCertificate = await made.reissue(validity);
            await db
              .updateTable('manage_instances')
              .set({ signing_certificate: signingCertificate })
              .where('id', '=', id)
              .execute();
          };
          const signed = (apl: object) =>
            made.sign('downstreamManage', {
              registrationNonce: registration.registrationNonce,
              timestamp: new Date().toISOString(),
              nonce: randomUUID(),
              ...apl,
            });
          const suspend = async () =>
            ctx().call('POST', '/apl/registration/status', { body: await signed({ registrationState: 'Suspended' }) });
          const message = async () =>
            ctx().call('POST', '/apl/peer/message', {
              body: await signed({ messageId: randomUUID(), kind: 'event', body: {} }),
            });

          // the same key, its certificate's validity over (or not begun)
          for (const validity of [
            { notBefore: new Date(Date.now() - 2 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) },
            { notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 2 * DAY_MS) },
          ]) {
            await registered(validity);
            const refused = expectToken(await suspend(), 420, 'registrationSignatureInvalid', 'signature');
            expect(refused.errorDescription).toMatch(/expired|not valid before/);
            expect(await storedState(id)).toBe('Approved');
            expectToken(await message(), 420, 'registrationSignatureInvalid', 'signature');
          }
          await registered({});
          expect((await suspend()).json()).toEqual({ registrationId: id, registrationState: 'Suspended' });
        });
      });

      it('/status: the peer suspends an approved registration and lifts it; this side cannot lift it', async () => {
        await withStubPeer(async (url, received) => {
          const { made, registration, id } = await handMadeRegistration(url);
          expect((await call('POST', '/ui/manage/approve', { id, approve: true })).json()).toMatchObject({
            registrationState: 'Approved',
          });
          expect(received.map((message) => message.path)).toEqual(['/apl/registration/update']);

          const serial = new X509Certificate(registration.signingCertificate).serialNumber;
          const status = () => ctx().call('GET', `/apl/registration/status?keySerialNumber=${serial.toLowerCase()}`);
          expect((await status()).json()).toEqual({ keySerialNumber: serial.toLowerCase(), registrationState: 'Approved' });
          expectToken(
            await ctx().call('GET', '/apl/registration/status?keySerialNumber=ABCDEF'),
            420,
            'registrationNotPresent',
            'keySerialNumber',
          );

          const notice = async (registrationState: string) =>
            made.sign('downstreamManage', {
              registrationNonce: registration.registrationNonce,
              registrationState,
              timestamp: new Date().toISOString(),
              nonce: randomUUID(),
            });
          const post = (body: object) => ctx().call('POST', '/apl/registration/status', { body });
          expectToken(await post(await notice('Approved')), 420, 'registrationAlreadyApproved');
          expectToken(await post(await notice('Rejected')), 420, 'registrationExchangeInvalidRegistration');
          const suspend = await notice('Suspended');
          expect((await post(suspend)).json()).toEqual({ registrationId: id, registrationState: 'Suspended' });
          expectToken(await post(suspend), 420, 'duplicateAplReceived');
          expect((await status()).json()).toMatchObject({ registrationState: 'Suspended' });
          expectToken(await post(await notice('Suspended')), 420, 'registrationNotApproved');
          expectToken(await call('POST', '/ui/manage/approve', { id, approve: true }), 420, 'registrationTargetCannotUnsuspend');
          expect((await post(await notice('Approved'))).json()).toMatchObject({ registrationState: 'Approved' });
          expect((await status()).json()).toMatchObject({ registrationState: 'Approved' });
        });
      });

      it('/update: a suspended registration takes no decision; only /status lifts the suspension', async () => {
        // a peer this app registers with: it hands over its certificates and takes the registration
        const certificates = { signingCertificate: '', encryptionCertificate: '' };
        const peerSide = http.createServer((request, response) => {
          request.resume();
          request.on('end', () => {
            const answer =
              request.url === '/certificate/certificateChain'
                ? certificates
                : { registrationId: randomUUID(), registrationState: 'Pending' };
            response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          });
        });
        await new Promise<void>((resolve) => peerSide.listen(0, '127.0.0.1', resolve));
        try {
          const manageUrl = `http://127.0.0.1:${(peerSide.address() as AddressInfo).port}`;
          const made = await handMadePeer(manageUrl);
          const { signingCertificate, encryptionCertificate } = made.registration();
          Object.assign(certificates, { signingCertificate, encryptionCertificate });
          const added = await call('POST', '/ui/manage/add', { manageUrl });
          expect(added.statusCode, added.body).toBe(200);
          const ours = added.json() as TManageInstance;
          expect(ours).toMatchObject({ initiator: true, registrationState: 'Pending' });

          const signed = async (registrationState: string) =>
            made.sign('downstreamManage', {
              registrationNonce: ours.registrationNonce,
              registrationState,
              timestamp: new Date().toISOString(),
              nonce: randomUUID(),
            });
          const send = async (path: string, registrationState: string) =>
            ctx().call('POST', path, { body: await signed(registrationState) });
          const stored = () => storedState(ours.manageId);

          expect((await send('/apl/registration/update', 'Approved')).json()).toMatchObject({ registrationState: 'Approved' });
          expect((await send('/apl/registration/status', 'Suspended')).json()).toMatchObject({
            registrationState: 'Suspended',
          });
          for (const decision of ['Rejected', 'Approved']) {
            expectToken(
              await send('/apl/registration/update', decision),
              420,
              'registrationTargetCannotUnsuspend',
              'apl.registrationState',
            );
            expect(await stored()).toBe('Suspended');
          }
          expect((await send('/apl/registration/status', 'Approved')).json()).toMatchObject({ registrationState: 'Approved' });
          expect((await send('/apl/registration/update', 'Rejected')).json()).toMatchObject({ registrationState: 'Rejected' });
          expect(await stored()).toBe('Rejected');
        } finally {
          await new Promise((resolve) => peerSide.close(resolve));
        }
      });
    });
  },
  { PEER_ALLOWED_HOSTS: LOOPBACK_PEERS, PUBLIC_URL: localUrl },
);
