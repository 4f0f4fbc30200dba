import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TDsiEntry, TDtl, TManageInstance, TOrder, TPage, TProtectInstance } from '@manifold/contract';
import { describeCertificate, parseCertificateBundle } from '../src/crypto/certificates.js';
import { createCsr } from '../src/crypto/csr.js';
import type { IssueOptions } from '../src/crypto/development-ca.js';
import { decryptContent, encryptForCertificate, unwrapContentKey, wrapContentKey } from '../src/crypto/design-keys.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { verifyXmlSignature } from '../src/crypto/xml-signature.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { signApl } from '../src/modules/registrations/apl-checks.js';
import {
  policyFor,
  registerApprovedMachine,
  stpEnvelope,
  uploadDesignFile,
  type LicensingWorld,
} from './helpers/licensing-fixtures.js';
import { multipartEntries } from './helpers/multipart.js';
import { deliverOutbox } from './helpers/outbox-delivery.js';
import { createPackage } from './helpers/packages-fixtures.js';
import { joinWithApp, LOOPBACK_PEERS, registerDownstream, suitePeer } from './helpers/peer-network.js';
import { TestProtect, type ProtectTransport } from './helpers/protect-client.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';
import { DAY_MS, issue, peerIdentity } from './helpers/test-pki.js';

const BOM = '\uFEFF';

/** The downstream Manage instance: a server process of its own (SQLite); this suite's app is its upstream. */
const downstream = await suitePeer('Designs Network Root', 'Downstream Designs', { JOBS_POLL_MS: '200' });
const { localUrl } = downstream;

/** A POST to the downstream process as a peer or machine would make it (no session). */
async function postDownstream(path: string, body: Buffer | string, headers: Record<string, string>) {
  const response = await fetch(`${downstream.url}${path}`, { method: 'POST', headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: bytes.toString('utf8'),
    bytes,
    json: () => JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
  };
}

describeEachDatabase(
  'designs between instances and the FSS calls',
  (ctx) => {
    let admin: string;
    let user: string;
    let ours: TManageInstance;
    let theirs: TManageInstance;
    let dsiId: string;
    let revision: TDsiEntry;
    const privateBytes = randomBytes(50_000);
    const publicBytes = Buffer.from('Print at 0.1 mm with care');
    let privateFileId: string;
    const call = (method: 'GET' | 'POST', url: string, body?: unknown, token = admin) =>
      ctx().call(method, url, { token, ...(body !== undefined ? { body } : {}) });
    const outboxRow = (messageId: string) =>
      ctx()
        .app.services.database.db.selectFrom('outbox')
        .selectAll()
        .where('message_id', '=', messageId)
        .executeTakeFirstOrThrow();

    beforeAll(async () => {
      ({ admin, user } = await joinWithApp(ctx(), downstream));
      const pkg = await createPackage(ctx());
      dsiId = pkg.dsiId;
      privateFileId = (await uploadDesignFile(ctx(), dsiId, privateBytes, false)).fileId;
      await uploadDesignFile(ctx(), dsiId, publicBytes, true);
      const built = await call('POST', '/ui/package/build', { dsiId });
      expect(built.statusCode, built.body).toBe(200);
      revision = built.json<TDsiEntry>();
      ({ ours, theirs } = await registerDownstream(ctx(), admin, downstream));
    }, 120_000);

    describe('access', () => {
      it('das/transfer and dtl/transfer need a session and ADMIN', async () => {
        for (const path of ['/ui/das/transfer', '/ui/dtl/transfer']) {
          expect((await ctx().call('POST', path, { body: {} })).statusCode).toBe(401);
          expectToken(
            await call('POST', path, { dsiId: randomUUID(), dtlId: randomUUID(), manageId: ours.manageId }, user),
            403,
            'actionNotAllowed',
          );
        }
      });
    });

    describe('das/transfer', () => {
      it('refuses an unknown design, a design never built, an unknown or unapproved Manage instance', async () => {
        expectToken(
          await call('POST', '/ui/das/transfer', { dsiId: randomUUID(), manageId: ours.manageId }),
          420,
          'packageNotPresent',
          'dsiId',
        );
        const unbuilt = await createPackage(ctx());
        expectToken(
          await call('POST', '/ui/das/transfer', { dsiId: unbuilt.dsiId, manageId: ours.manageId }),
          420,
          'packageNotPresent',
          'dsiId',
        );
        expectToken(
          await call('POST', '/ui/das/transfer', { dsiId, manageId: randomUUID() }),
          420,
          'manageIdNotValid',
          'manageId',
        );
        expectToken(await call('POST', '/ui/das/transfer', { dsiId, manageId: 'nope' }), 420, 'manageIdNotValid', 'manageId');
        // the same peer registered the other way round: pending until the downstream approves it
        const pending = await call('POST', '/ui/manage/add', { manageUrl: downstream.url, registrationType: 'upStreamManage' });
        expect(pending.statusCode, pending.body).toBe(200);
        const pendingId = pending.json<TManageInstance>().manageId;
        expectToken(
          await call('POST', '/ui/das/transfer', { dsiId, manageId: pendingId }),
          420,
          'manageInstaceNotApproved',
          'manageId',
        );
        expect((await call('POST', '/ui/manage/delete', { id: pendingId })).statusCode).toBe(200);
      });

      it('hands the revision downstream, where a machine of a delegated order downloads and decrypts it', async () => {
        const sent = await call('POST', '/ui/das/transfer', { dsiId, manageId: ours.manageId });
        expect(sent.statusCode, sent.body).toBe(200);
        const { messageId } = sent.json<{ messageId: string }>();
        expect(sent.json()).toEqual({ messageId, manageId: ours.manageId, subjectId: revision.revisionId });
        expect((await outboxRow(messageId)).kind).toBe('design');
        await deliverOutbox(ctx());
        const row = await outboxRow(messageId);
        expect([row.state, row.last_error]).toEqual(['delivered', null]);
        // twice: the second message changes nothing there
        const again = await call('POST', '/ui/das/transfer', { dsiId, manageId: ours.manageId });
        await deliverOutbox(ctx());
        expect((await outboxRow(again.json<{ messageId: string }>().messageId)).state).toBe('delivered');
        const held = (await downstream.call('GET', `/ui/das/list?dsiId=${dsiId}`)).json() as TPage<TDsiEntry>;
        expect(held.data.map((entry) => [entry.revisionId, entry.dsiVersion, entry.digestValue])).toEqual([
          [revision.revisionId, revision.dsiVersion, revision.digestValue],
        ]);
        const audit = await call('GET', `/ui/audit/list?kind=designTransferred&subject=${dsiId}`);
        expect(audit.statusCode, audit.body).toBe(200);
        expect(audit.json<{ data: unknown[] }>().data.length).toBe(2);

        // the upstream authorizes the downstream instance: an order there
        const signing = (await ctx().app.services.credentials.identity('signing')).certificatePem;
        const world = { revision, licenseeSerial: describeCertificate(signing).serialNumber } as LicensingWorld;
        const ordered = await call('POST', '/ui/order/add', { authorizationAuthorizedPolicyList: policyFor(world) });
        expect(ordered.statusCode, ordered.body).toBe(200);
        const orderId = ordered.json<{ orderId: string }>().orderId;
        const authorized = await call('POST', '/ui/authorization/authorize', { orderId, manageId: ours.manageId, quantity: 3 });
        expect(authorized.statusCode, authorized.body).toBe(200);
        const authorizationId = authorized.json<{ authorizationId: string }>().authorizationId;
        expect((await call('POST', '/ui/authorization/send', { orderId, authorizationId })).statusCode).toBe(200);
        await deliverOutbox(ctx());
        const orders = (await downstream.call('GET', '/ui/order/list?numberOfItems=100')).json() as TPage<TOrder>;
        const delegated = orders.data.find((order) => order.orderIdentity.authorizationId === authorizationId)!;
        expect(delegated.dsi).toMatchObject({ dsiId, revisionId: revision.revisionId });

        // a machine of the downstream instance
        const { machine, deviceId } = await registerApprovedMachine(downstream, downstream.root);
        const there = await downstream.call('POST', '/ui/authorization/authorize', {
          body: { orderId: delegated.orderIdentity.orderId, deviceId, quantity: 1 },
        });
        expect(there.statusCode, there.body).toBe(200);
        const machineAuthorization = (there.json() as { authorizationId: string }).authorizationId;
        const sentThere = await downstream.call('POST', '/ui/authorization/send', {
          body: { orderId: delegated.orderIdentity.orderId, authorizationId: machineAuthorization },
        });
        expect(sentThere.statusCode, sentThere.body).toBe(200);

        const stp = async (path: string, body: Record<string, unknown>) =>
          postDownstream(path, JSON.stringify(await stpEnvelope(machine, deviceId, path, body)), {
            'content-type': 'application/json',
          });
        const document = await stp('/stp/authorization/download', { authorizationId: machineAuthorization });
        expect(document.statusCode, document.body).toBe(200);
        const { element } = verifyXmlSignature(document.body, parseCertificateBundle(downstream.signing)[0]!.pem);
        const files = element.getElementsByTagName('File');
        let wrapped: string | undefined;
        for (let i = 0; i < files.length; i += 1) {
          const file = files.item(i)!;
          if (file.getAttribute('fileId') === privateFileId)
            wrapped = file.getElementsByTagName('WrappedKey').item(0)!.textContent!;
        }
        const contentKey = await unwrapContentKey(wrapped!, machine.encryptionKeyPem);
        const encrypted = await stp('/stp/design/download', { authorizationId: machineAuthorization, fileId: privateFileId });
        expect(encrypted.statusCode, encrypted.body).toBe(200);
        expect(encrypted.headers['x-manifold-encrypted']).toBe('true');
        expect(decryptContent(encrypted.bytes, contentKey).equals(privateBytes)).toBe(true);
      });
    });

    describe('/mpf/design from a Manage peer', () => {
      /** A design message as the delivery job makes it, signed by this app under the registration. */
      const designMessage = async (apl: Record<string, unknown> = {}, body: Record<string, unknown> = {}) => {
        const { credentials, database } = ctx().app.services;
        const row = await database.db
          .selectFrom('package_revisions')
          .selectAll()
          .where('id', '=', revision.revisionId)
          .executeTakeFirstOrThrow();
        const files = await database.db
          .selectFrom('revision_files')
          .selectAll()
          .where('revision_id', '=', revision.revisionId)
          .execute();
        const recipient = parseCertificateBundle(theirsEncryption())[0]!.pem;
        const manifest = JSON.parse(row.manifest) as { files: { fileId: string }[] };
        const ordered = manifest.files.map((entry) => files.find((file) => file.file_id === entry.fileId)!);
        const design = {
          revisionId: revision.revisionId,
          manifest: row.manifest,
          manifestSignature: row.signature,
          signerCertificate: (await credentials.identity('signing')).chainPem,
          files: await Promise.all(
            ordered.map(async (file) => ({
              fileId: file.file_id,
              wrappedKey: file.wrapped_key
                ? await wrapContentKey(await credentials.unwrapContentKey(file.wrapped_key), recipient)
                : null,
            })),
          ),
          ...body,
        };
        const parts = await Promise.all(
          ordered.map(async (file) => Buffer.concat(await (await ctx().app.services.storage.get(file.storage_key)).toArray())),
        );
        const message = await signApl(credentials, 'upstreamManage', {
          registrationNonce: ours.registrationNonce,
          messageId: randomUUID(),
          kind: 'design',
          timestamp: new Date().toISOString(),
          nonce: randomUUID(),
          body: design,
          ...apl,
        });
        return { message, parts };
      };
      let encryptionOfDownstream = '';
      const theirsEncryption = () => encryptionOfDownstream;
      const post = (message: unknown, parts: Buffer[], text = JSON.stringify(message)) => {
        const form = multipartEntries([
          ['message', text],
          ...parts.map(
            (content) =>
              ['file', { filename: 'f.bin', content, contentType: 'application/octet-stream' }] as [
                string,
                { filename: string; content: Buffer; contentType: string },
              ],
          ),
        ]);
        return postDownstream('/mpf/design', form.body, form.headers);
      };

      beforeAll(async () => {
        const row = await ctx()
          .app.services.database.db.selectFrom('manage_instances')
          .select('encryption_certificate')
          .where('id', '=', ours.manageId)
          .executeTakeFirstOrThrow();
        encryptionOfDownstream = row.encryption_certificate!;
      });

      it('acknowledges a message id twice as a duplicate and refuses a replayed nonce', async () => {
        const messageId = randomUUID();
        const first = await designMessage({ messageId });
        expect((await post(first.message, first.parts)).json()).toEqual({ messageId, received: 'applied' });
        const second = await designMessage({ messageId });
        expect((await post(second.message, second.parts)).json()).toEqual({ messageId, received: 'duplicate' });
        const replay = await designMessage();
        expect((await post(replay.message, replay.parts)).statusCode).toBe(200);
        const replayed = await post(replay.message, replay.parts);
        expect([replayed.statusCode, replayed.json().errorToken]).toEqual([420, 'duplicateAplReceived']);
      });

      it('reads a message starting with one UTF-8 byte order mark as without it; two are not JSON', async () => {
        const messageId = randomUUID();
        const first = await designMessage({ messageId });
        const applied = await post(first.message, first.parts, BOM + JSON.stringify(first.message));
        expect(applied.statusCode, applied.body).toBe(200);
        expect(applied.json()).toEqual({ messageId, received: 'applied' });
        // taken as the message itself: the same id again, without the mark, is its duplicate
        const again = await designMessage({ messageId });
        expect((await post(again.message, again.parts)).json()).toEqual({ messageId, received: 'duplicate' });

        const twiceId = randomUUID();
        const twice = await designMessage({ messageId: twiceId });
        expectToken(
          await post(twice.message, twice.parts, BOM + BOM + JSON.stringify(twice.message)),
          420,
          'registrationExchangeInvalidApl',
          'message',
        );
        // refused before anything was kept: the same message is taken afterwards
        expect((await post(twice.message, twice.parts)).json()).toEqual({ messageId: twiceId, received: 'applied' });
      });

      it('refuses forged signatures, a forged manifest, altered files, missing files and the wrong entry point', async () => {
        const { message, parts } = await designMessage();
        const forger = await peerIdentity(downstream.root, { purpose: 'signing' });
        const forged = { ...message, signature: await signDetachedJws(canonicalJson(message.apl), forger.privateKeyPem) };
        expect((await post(forged, parts)).json().errorToken).toBe('registrationSignatureInvalid');

        const manifestForged = await designMessage({}, { manifestSignature: 'eyJhbGciOiJFUzI1NiJ9..AAAA' });
        expect((await post(manifestForged.message, manifestForged.parts)).json()).toMatchObject({
          errorToken: 'registrationSignatureInvalid',
          field: 'apl.body.manifestSignature',
        });
        const altered = await designMessage();
        const flipped = altered.parts.map((part) => Buffer.from(part));
        flipped[0]![flipped[0]!.length - 1]! ^= 1;
        expect((await post(altered.message, flipped)).json().errorToken).toBe('packageFileCorrupted');
        const missing = await designMessage();
        expect((await post(missing.message, [])).json()).toMatchObject({ errorToken: 'uploadFileMissing' });
        const wrongPlace = await designMessage();
        const json = await postDownstream('/apl/peer/message', JSON.stringify(wrongPlace.message), {
          'content-type': 'application/json',
        });
        expect(json.json()).toMatchObject({ errorToken: 'registrationExchangeInvalidApl', field: 'apl.kind' });
        const unknown = await designMessage({ registrationNonce: randomUUID() });
        expect((await post(unknown.message, unknown.parts)).json().errorToken).toBe('registrationNotPresent');
      });
    });

    describe('dtl/transfer', () => {
      it('refuses unknown records and instances, and hands a record with its file downstream', async () => {
        const { deviceId } = await registerApprovedMachine(ctx(), downstream.root);
        const bytes = randomBytes(2048);
        const form = multipartEntries([
          ['deviceId', deviceId],
          ['file', { filename: 'log.csv', content: bytes, contentType: 'text/csv' }],
        ]);
        const uploaded = await ctx().call('POST', '/ui/storage/dtl/upload', {
          token: admin,
          body: form.body,
          headers: form.headers,
        });
        expect(uploaded.statusCode, uploaded.body).toBe(200);
        const dtl = uploaded.json<TDtl>();
        expectToken(
          await call('POST', '/ui/dtl/transfer', { dtlId: randomUUID(), manageId: ours.manageId }),
          420,
          'dtlNotPresent',
          'dtlId',
        );
        expectToken(
          await call('POST', '/ui/dtl/transfer', { dtlId: dtl.dtlId, manageId: randomUUID() }),
          420,
          'manageIdNotValid',
          'manageId',
        );
        const sent = await call('POST', '/ui/dtl/transfer', { dtlId: dtl.dtlId, manageId: ours.manageId });
        expect(sent.statusCode, sent.body).toBe(200);
        await deliverOutbox(ctx());
        expect((await outboxRow(sent.json<{ messageId: string }>().messageId)).state).toBe('delivered');
        const there = (await downstream.call('GET', '/ui/dtl/list?numberOfItems=100')).json() as TPage<TDtl>;
        expect(
          there.data
            .filter((entry) => entry.dtlId === dtl.dtlId)
            .map((entry) => [entry.deviceId, entry.sha256, entry.size, entry.manageId]),
        ).toEqual([[deviceId, dtl.sha256, 2048, theirs.manageId]]);
      });
    });

    describe('the FSS calls of a Protect', () => {
      const transport: ProtectTransport = (path, body, headers) =>
        ctx().call('POST', path, { body, ...(headers ? { headers } : {}) }) as never;
      const tokens = async () => (await call('POST', '/ui/protect/tokens')).json<{ token1: string; token2: string }>();
      const protectRow = async (token1: string) =>
        (await call('GET', '/ui/protect/list?numberOfItems=100'))
          .json<TPage<TProtectInstance>>()
          .data.find((row) => row.protectId === token1)!;
      /** What `/mpf/design` answers for the first revision of a design built by `buildDesign`. */
      const firstRevision = (built: { dsiId: string; digest: string; design: { revisionId: string } }) => ({
        dsiId: built.dsiId,
        revisionId: built.design.revisionId,
        dsiVersion: 1,
        digest: built.digest,
      });
      /** A Protect registered with a fresh token pair and approved here. */
      const approvedProtect = async () => {
        const protect = await TestProtect.create(transport, downstream.root);
        const pair = await tokens();
        await protect.registerRequest(pair.token1);
        expect((await protect.register(pair.token2)).answer.statusCode).toBe(200);
        const id = (await protectRow(pair.token1)).id;
        expect((await call('POST', '/ui/protect/approve', { id, approve: true })).statusCode).toBe(200);
        return { protect, pair, id };
      };

      /** The Protect's registered signing certificate replaced by another of the same key, valid as `validity` says. */
      const reissueSigningCertificate = async (protect: TestProtect, id: string, validity: IssueOptions) => {
        const csr = await createCsr({
          siteName: protect.name,
          service: 'protect',
          purpose: 'signing',
          privateKeyPem: protect.signingKeyPem,
        });
        const signingCertificate = await issue(downstream.root, csr, validity);
        await ctx()
          .app.services.database.db.updateTable('protect_registrations')
          .set({ signing_certificate: signingCertificate })
          .where('id', '=', id)
          .execute();
      };

      it('registers with the token pair; every refusal of the registration', async () => {
        const protect = await TestProtect.create(transport, downstream.root);
        expectToken(await protect.registerRequest('no-such-token'), 420, 'fssTokenNotFound', 'token');
        const pair = await tokens();
        const request = await protect.registerRequest(pair.token1);
        expect(request.statusCode, request.body).toBe(200);
        expect(request.json()).toMatchObject({ protectId: pair.token1, registrationState: 'Pending', registered: false });

        expectToken(await transport('/fss/protect/register', { payload: 'not-a-jwe' }), 420, 'fssPayloadDecryptError', 'payload');
        const foreign = await peerIdentity(downstream.root, { purpose: 'encryption' });
        const misaddressed = await protect.seal({ any: 1 }, { recipient: foreign.certificatePem });
        expectToken(
          await transport('/fss/protect/register', { payload: misaddressed }),
          420,
          'fssPayloadDecryptError',
          'payload',
        );
        expectToken((await protect.register('wrong-token2')).answer, 420, 'fssTokenNotFound');
        const forger = await peerIdentity(downstream.root, { purpose: 'signing' });
        const forged = await transport('/fss/protect/register', {
          payload: await protect.seal(
            {
              token1: pair.token1,
              token2: pair.token2,
              name: protect.name,
              signingCertificate: protect.signingCertificate,
              encryptionCertificate: protect.encryptionCertificate,
              timestamp: new Date().toISOString(),
              nonce: randomUUID(),
            },
            { signingKeyPem: forger.privateKeyPem },
          ),
        });
        expectToken(forged, 420, 'registrationSignatureInvalid');
        // an encryption certificate no answer can be encrypted for: nothing is registered
        expectToken(
          (await protect.register(pair.token2, { encryptionCertificate: protect.signingCertificate })).answer,
          420,
          'fssPayloadEncryptError',
          'payload',
        );
        expect((await protectRow(pair.token1)).fss).toBe(false);
        const stale = await protect.register(pair.token2, { timestamp: new Date(Date.now() - 3_600_000).toISOString() });
        expectToken(stale.answer, 420, 'registrationExchangeInvalidApl', 'payload.timestamp');

        const registered = await protect.register(pair.token2);
        expect(registered.answer.statusCode, registered.answer.body).toBe(200);
        expect(registered.result).toEqual({ registrationId: (await protectRow(pair.token1)).id, registrationState: 'Pending' });
        expect((await protectRow(pair.token1)).fss).toBe(true);
        expectToken((await protect.register(pair.token2)).answer, 420, 'registrationExchangeAlreadyRegistered');
        // pending: nothing else yet
        expectToken((await protect.uploadToken()).answer, 420, 'registrationNotApproved');
      });

      it('refuses a payload whose claims nest too deeply with fssPayloadDecryptError, not a server error', async () => {
        const protect = await TestProtect.create(transport, downstream.root);
        const request = await protect.registerRequest((await tokens()).token1);
        expect(request.statusCode, request.body).toBe(200);
        const recipient = parseCertificateBundle(request.json().encryptionCertificate as string)[0]!.pem;
        // claims written by hand: no signer walks a value nested this deeply
        const claims = `{"nonce":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
        const base64url = (text: string) => Buffer.from(text).toString('base64url');
        const jws = `${base64url('{"alg":"ES256"}')}.${base64url(claims)}.${base64url('signature')}`;
        const payload = await encryptForCertificate(Buffer.from(jws), recipient);
        for (const path of ['/fss/protect/register', '/fss/order', '/fss/getUploadToken', '/fss/delete']) {
          expectToken(await transport(path, { payload }), 420, 'fssPayloadDecryptError', 'payload');
        }
      });

      it('an approved Protect publishes a design, orders it and deletes another; replays and forgeries are refused', async () => {
        const { protect, pair, id } = await approvedProtect();

        const granted = await protect.uploadToken();
        expect(granted.answer.statusCode, granted.answer.body).toBe(200);
        const token = granted.result!.token as string;
        const built = await protect.buildDesign([
          { fileName: 'part.3mf', bytes: randomBytes(30_000), isPublic: false },
          { fileName: 'notes.txt', bytes: Buffer.from('notes'), isPublic: true },
        ]);
        const published = await protect.publish(token, built.design, built.parts);
        expect(published.statusCode, published.body).toBe(200);
        expect(published.json()).toEqual(firstRevision(built));
        expectToken(await protect.publish(token, built.design, built.parts), 420, 'fssTokenNotFound', 'token');
        const stored = await ctx()
          .app.services.database.db.selectFrom('package_revisions')
          .select(['created_by', 'signer_certificate'])
          .where('id', '=', built.design.revisionId)
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({ created_by: `protect:${pair.token1}`, signer_certificate: protect.signingCertificate.trim() });

        const signing = (await ctx().app.services.credentials.identity('signing')).certificatePem;
        const world = {
          revision: { dsiId: built.dsiId, dsiVersion: 1, digestValue: built.digest },
          licenseeSerial: describeCertificate(signing).serialNumber,
        } as unknown as LicensingWorld;
        const claims = protect.claims({ authorizationAuthorizedPolicyList: policyFor(world) });
        const ordered = await protect.call('/fss/order', claims);
        expect(ordered.answer.statusCode, ordered.answer.body).toBe(200);
        const orderId = ordered.result!.orderId as string;
        const order = await call('GET', `/ui/order/fetch?orderId=${orderId}`);
        expect(order.json<TOrder>()).toMatchObject({
          source: 'protect',
          dsi: { dsiId: built.dsiId, revisionId: built.design.revisionId },
          quantity: 10,
        });
        expectToken((await protect.call('/fss/order', claims)).answer, 420, 'duplicateAplReceived');
        const stale = protect.claims({ timestamp: new Date(Date.now() - 3_600_000).toISOString() });
        expectToken(
          (await protect.call('/fss/getUploadToken', stale)).answer,
          420,
          'registrationExchangeInvalidApl',
          'payload.timestamp',
        );
        expectToken(
          (await protect.call('/fss/getUploadToken', protect.claims({ protectId: 'unknown' }))).answer,
          420,
          'fssTokenNotFound',
        );
        const forger = await peerIdentity(downstream.root, { purpose: 'signing' });
        const forged = await transport('/fss/getUploadToken', {
          payload: await protect.seal(protect.claims(), { signingKeyPem: forger.privateKeyPem }),
        });
        expectToken(forged, 420, 'registrationSignatureInvalid');
        const garbage = await encryptForCertificate(
          Buffer.from('not a jws'),
          parseCertificateBundle(protect.instance!.encryptionCertificate)[0]!.pem,
        );
        expectToken(await transport('/fss/order', { payload: garbage }), 420, 'fssPayloadDecryptError', 'payload');

        // delete: not one of its designs, one with orders, then one it may
        expectToken((await protect.deleteDesign(dsiId)).answer, 420, 'packageNotPresent');
        expectToken((await protect.deleteDesign(built.dsiId)).answer, 420, 'packageReferencedByOrders');
        const second = await protect.buildDesign([{ fileName: 'b.3mf', bytes: randomBytes(1000), isPublic: false }]);
        const token2 = (await protect.uploadToken()).result!.token as string;
        expect((await protect.publish(token2, second.design, second.parts)).statusCode).toBe(200);
        const deleted = await protect.deleteDesign(second.dsiId);
        expect(deleted.answer.statusCode, deleted.answer.body).toBe(200);
        expect(deleted.result).toEqual({ dsiId: second.dsiId, deleted: true });
        expect(
          await ctx()
            .app.services.database.db.selectFrom('packages')
            .select('id')
            .where('id', '=', second.dsiId)
            .executeTakeFirst(),
        ).toBeUndefined();

        // suspended by an admin (rejected): nothing more
        expect((await call('POST', '/ui/protect/approve', { id, approve: false })).statusCode).toBe(200);
        expectToken((await protect.uploadToken()).answer, 420, 'registrationNotApproved');
      });

      it("reads a Protect's design field starting with one UTF-8 byte order mark as without it; two are not JSON", async () => {
        const { protect, pair } = await approvedProtect();
        const token = (await protect.uploadToken()).result!.token as string;
        const built = await protect.buildDesign([{ fileName: 'part.3mf', bytes: randomBytes(1000), isPublic: false }]);
        const publish = (text: string) => protect.publish(token, built.design, built.parts, text);
        // refused before the token is spent
        expectToken(await publish(BOM + BOM + JSON.stringify(built.design)), 420, 'registrationExchangeInvalidApl', 'design');
        const published = await publish(BOM + JSON.stringify(built.design));
        expect(published.statusCode, published.body).toBe(200);
        expect(published.json()).toEqual(firstRevision(built));
        const stored = await ctx()
          .app.services.database.db.selectFrom('package_revisions')
          .select(['created_by', 'package_id'])
          .where('id', '=', built.design.revisionId)
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({ created_by: `protect:${pair.token1}`, package_id: built.dsiId });
      });

      it("holds the values of a design's manifest to what a JSON body is held to, keeping nothing", async () => {
        const { protect } = await approvedProtect();
        const token = (await protect.uploadToken()).result!.token as string;
        const files = [{ fileName: 'part.3mf', bytes: randomBytes(1000), isPublic: false }];
        // the manifest is JSON text in the design, escaped: a NUL in it was stored (PostgreSQL refuses it: 500)
        const nul = await protect.buildDesign(files, 'Bracket\u0000');
        const refused = expectToken(await protect.publish(token, nul.design, nul.parts), 400, 'malformedRequest');
        expect(refused.errorDescription).toBe('design.manifest.designName contains a NUL character');
        const control = await protect.buildDesign(files, 'Bracket\u0001');
        expectToken(
          await protect.publish(token, control.design, control.parts),
          420,
          'invalidCharacters',
          'design.manifest.designName',
        );
        const kept = await ctx()
          .app.services.database.db.selectFrom('package_revisions')
          .select('id')
          .where('id', 'in', [nul.design.revisionId, control.design.revisionId])
          .execute();
        expect(kept).toEqual([]);
        // the token was not spent: a clean design is taken with it
        const clean = await protect.buildDesign(files, 'Bracket');
        expect((await protect.publish(token, clean.design, clean.parts)).statusCode).toBe(200);
      });

      it('refuses the calls of an approved Protect whose registered signing certificate has expired or is not valid yet', async () => {
        const { protect, id } = await approvedProtect();
        const { db } = ctx().app.services.database;
        const uploadTokens = async () =>
          Number(
            (
              await db
                .selectFrom('fss_upload_tokens')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('protect_id', '=', id)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const registered = (validity: IssueOptions) => reissueSigningCertificate(protect, id, validity);

        // the same key, its certificate's validity over (or not begun)
        for (const validity of [
          { notBefore: new Date(Date.now() - 2 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) },
          { notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 2 * DAY_MS) },
        ]) {
          await registered(validity);
          const refused = expectToken((await protect.uploadToken()).answer, 420, 'registrationSignatureInvalid', 'signature');
          expect(refused.errorDescription).toMatch(/expired on|not valid before/);
          expectToken((await protect.order({})).answer, 420, 'registrationSignatureInvalid', 'signature');
          expectToken((await protect.deleteDesign(dsiId)).answer, 420, 'registrationSignatureInvalid', 'signature');
          expect(await uploadTokens()).toBe(0);
        }
        await registered({});
        const granted = await protect.uploadToken();
        expect(granted.answer.statusCode, granted.answer.body).toBe(200);
        expect(await uploadTokens()).toBe(1);
      });

      it('refuses a design uploaded with its token once the registered signing certificate has expired or is not valid yet, storing nothing', async () => {
        const { protect, id } = await approvedProtect();
        const { db } = ctx().app.services.database;
        const granted = await protect.uploadToken();
        expect(granted.answer.statusCode, granted.answer.body).toBe(200);
        const token = granted.result!.token as string;
        const built = await protect.buildDesign([
          { fileName: 'part.3mf', bytes: randomBytes(5000), isPublic: false },
          { fileName: 'notes.txt', bytes: Buffer.from('notes'), isPublic: true },
        ]);
        const registered = (validity: IssueOptions) => reissueSigningCertificate(protect, id, validity);
        const storageKeys = async () => {
          const keys: string[] = [];
          for await (const object of ctx().app.services.storage.list()) keys.push(object.key);
          return keys.sort();
        };
        const kept = async () => ({
          packages: await db.selectFrom('packages').select('id').where('id', '=', built.dsiId).execute(),
          revisions: await db.selectFrom('package_revisions').select('id').where('id', '=', built.design.revisionId).execute(),
          files: await db
            .selectFrom('revision_files')
            .select('file_id')
            .where('revision_id', '=', built.design.revisionId)
            .execute(),
          token: await db
            .selectFrom('fss_upload_tokens')
            .select('used_at')
            .where('protect_id', '=', id)
            .executeTakeFirstOrThrow(),
        });
        const keysBefore = await storageKeys();

        // the token was granted while the certificate was valid; by the upload it expired (or is not valid yet)
        for (const validity of [
          { notBefore: new Date(Date.now() - 2 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) },
          { notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 2 * DAY_MS) },
        ]) {
          await registered(validity);
          const refused = expectToken(
            await protect.publish(token, built.design, built.parts),
            420,
            'registrationSignatureInvalid',
            'signature',
          );
          expect(refused.errorDescription).toMatch(
            validity.notAfter < new Date() ? /Protect .*expired on/ : /Protect .*not valid before/,
          );
          expect(await kept()).toEqual({ packages: [], revisions: [], files: [], token: { used_at: null } });
          expect(await storageKeys()).toEqual(keysBefore);
        }

        // a current certificate again: the same token, still unspent, publishes the design
        await registered({});
        const published = await protect.publish(token, built.design, built.parts);
        expect(published.statusCode, published.body).toBe(200);
        expect(published.json()).toEqual(firstRevision(built));
      });
    });
  },
  { PEER_ALLOWED_HOSTS: LOOPBACK_PEERS, PUBLIC_URL: localUrl },
);
