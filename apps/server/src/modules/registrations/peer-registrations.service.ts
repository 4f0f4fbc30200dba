import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  ZManageApl,
  ZRegistrationNoticeApl,
  type TAplPeerRegistrationResponse,
  type TAplRegistrationRequest,
  type TManageType,
  type TPage,
  type TPageQuery,
  type TRegistrationApproveRequest,
  type TRegistrationNoticeApl,
  type TRegistrationState,
} from '@manifold/contract';
import type { Config } from '../../config.js';
import { parseCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import type { Database } from '../../db/database.js';
import type { LicenceService } from '../licence/licence.service.js';
import type { ServerSettings } from '../settings/server-settings.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { requestPeerCertificates } from '../../peers/certificate-exchange.client.js';
import { parsePeerUrl, peerBaseText } from '../../peers/http-client.js';
import { postNotice, postRegistration, type NoticePath } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { enqueueRegistrationNotice } from './registration-notice.job.js';
import {
  checkPeerChain,
  checkSignedRecently,
  parseApl,
  SIGNED_WINDOW_MS,
  signApl,
  validSigningCertificate,
  verifyAplSignature,
} from './apl-checks.js';
import { PeerRegistrationsRepository } from './peer-registrations.repository.js';
import { organizationOf } from './registration-views.js';
import { memoized } from '../../lib/memo.js';

/** How this instance holds a peer (`manage_type`). */
export type PeerRelation = TManageType | 'trace';

/** APL types of peers: what the sender is to the receiver (a Manage instance's upstream or downstream, or its Trace). */
export const peerAplTypes = ['upstreamManage', 'downstreamManage', 'trace'] as const;
export type PeerAplType = (typeof peerAplTypes)[number];

/** A peer's stored certificate chain, parsed once per chain. */
const storedChain = memoized(parseCertificateBundle);

/** How far a signed message's timestamp may be from now (either way). */
export const NOTICE_WINDOW_MS = SIGNED_WINDOW_MS;

/**
 * The `peer_nonces` owner of the registration nonces of registrations deleted here: a
 * registration replayed within its `dateCreated` window after the deletion is
 * `duplicateAplReceived`, not registered again (kept as long as notice nonces, `outbox.purge`).
 */
const DELETED_REGISTRATIONS = 'deleted-registrations';

/** The APL type we send to a peer we hold as `relation` (it is our downstream: we are its upstream). */
export const sentAplType: Record<PeerRelation, PeerAplType> = {
  downStreamManage: 'upstreamManage',
  upStreamManage: 'downstreamManage',
  trace: 'trace',
};

/** How we hold a peer that sent `aplType` (it says it is our upstream: we hold it as upStreamManage). */
const heldAs: Record<PeerAplType, PeerRelation> = {
  upstreamManage: 'upStreamManage',
  downstreamManage: 'downStreamManage',
  trace: 'trace',
};

/** The states each notice path carries. */
const expectedStates: Record<NoticePath, TRegistrationState[]> = {
  '/apl/registration/update': ['Approved', 'Rejected'],
  '/apl/registration/delete': ['Cancelled'],
  '/apl/registration/status': ['Suspended', 'Approved'],
};

/** A peer suspends an approved registration, or lifts its suspension. */
function checkStatusChange(current: string, wanted: TRegistrationState): void {
  if (wanted === 'Suspended' && current !== 'Approved') {
    throw new AppError('registrationNotApproved', {
      field: 'apl.registrationState',
      description: `The registration is ${current}`,
    });
  }
  if (wanted === 'Approved' && current === 'Approved')
    throw new AppError('registrationAlreadyApproved', { field: 'apl.registrationState' });
  if (wanted === 'Approved' && current !== 'Suspended') {
    throw new AppError('registrationNotApproved', {
      field: 'apl.registrationState',
      description: `Only a suspended registration can be approved again this way; it is ${current}`,
    });
  }
}

const replayed = () =>
  new AppError('duplicateAplReceived', { field: 'apl.nonce', description: 'This message was received before (a replay)' });

/**
 * Registrations between instances: Manage upstream and downstream, and Trace
 * (docs/peer-network.md#registrations). The side that
 * adds a peer (`initiator`) exchanges certificates with it and posts a signed registration to its
 * `/apl/registration/add`; the other side's admin approves or rejects, which is sent back signed
 * to `/apl/registration/update` before it is stored. Either side may delete its record; the
 * peer is told through `/apl/registration/delete` and holds its record as Cancelled.
 */
export class PeerRegistrationsService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
    private readonly config: Config,
    private readonly serverSettings: ServerSettings,
    private readonly licence: Pick<LicenceService, 'assertRoom'>,
  ) {}

  private instances(db: Kysely<DB> = this.database.db): PeerRegistrationsRepository {
    return new PeerRegistrationsRepository(db);
  }

  list<T>(page: TPageQuery, relations: readonly PeerRelation[], view: (row: ManageInstanceRow) => T): Promise<TPage<T>> {
    return this.instances().list(page, relations, view);
  }

  /** `POST /ui/manage/add`, `/ui/trace/add`; `field` names the address in errors. */
  async add(relation: PeerRelation, address: string, field: string): Promise<ManageInstanceRow> {
    const peerUrl = parsePeerUrl(address, this.config.peers.allowedHosts);
    const signing = await this.credentials.signingIdentity();
    const encryption = await this.credentials.encryptionIdentity();
    const peer = await requestPeerCertificates({
      peerUrl: peerBaseText(peerUrl),
      replyRequest: 'both',
      certificateType: 'manage',
      certificate: parseCertificateBundle(signing.chainPem).map((certificate) => certificate.pem),
      trustAnchors: await this.credentials.trustAnchors(),
      http: this.config.peers,
    });
    const [peerSigning] = parseCertificateBundle(peer.signingCertificate!);
    const fingerprint = peerSigning!.node.fingerprint256;
    if (fingerprint === parseCertificate(signing.certificatePem).node.fingerprint256) {
      throw new AppError('registrationExchangeInvalidTarget', { field, description: 'This address is this instance itself' });
    }
    if (await this.instances().findPeer(fingerprint, relation)) {
      throw new AppError('registrationExchangeAlreadyRegistered', { field });
    }
    // before the peer is asked: a refusal here must not leave a registration there
    await this.licence.assertRoom('peerInstances');

    const now = isoNow();
    const apl = {
      registrationNonce: randomUUID(),
      manageSiteName: await this.serverSettings.siteName(),
      manageUrl: await this.serverSettings.serverUrl(),
      signingCertificate: signing.chainPem,
      encryptionCertificate: encryption.chainPem,
      dateCreated: now,
    };
    await postRegistration(this.config.peers, peerUrl, await signApl(this.credentials, sentAplType[relation], apl));

    const row: ManageInstanceRow = {
      id: randomUUID(),
      manage_site_name: organizationOf(peerSigning!.x509.subject) ?? peerUrl.host,
      manage_url: peerBaseText(peerUrl),
      manage_type: relation,
      registration_state: 'Pending',
      initiator: 1,
      signing_certificate: peer.signingCertificate,
      encryption_certificate: peer.encryptionCertificate,
      version: 1,
      created_at: now,
      updated_at: now,
      registration_nonce: apl.registrationNonce,
      signing_fingerprint: fingerprint,
    };
    await this.insert(row, field);
    return row;
  }

  /**
   * `POST /apl/registration/add` from a peer: stored Pending, not the initiator. Signed within five
   * minutes (`dateCreated`), with a registration nonce neither held nor of a registration deleted
   * in that window (`duplicateAplReceived`): a captured registration replayed is not taken again.
   */
  async receive(input: TAplRegistrationRequest & { aplType: PeerAplType }): Promise<TAplPeerRegistrationResponse> {
    const apl = parseApl(ZManageApl, input.apl);
    const signing = await checkPeerChain(this.credentials, apl.signingCertificate, 'apl.signingCertificate');
    await checkPeerChain(this.credentials, apl.encryptionCertificate, 'apl.encryptionCertificate');
    await verifyAplSignature(input, signing);
    checkSignedRecently(apl.dateCreated, 'apl.dateCreated');
    const peerUrl = parsePeerUrl(apl.manageUrl, this.config.peers.allowedHosts);
    const fingerprint = parseCertificate(signing).node.fingerprint256;
    const ours = await this.credentials.signingIdentity();
    if (fingerprint === parseCertificate(ours.certificatePem).node.fingerprint256) {
      throw new AppError('registrationExchangeInvalidTarget', { description: 'A registration from this instance itself' });
    }
    const manageType = heldAs[input.aplType];
    const instances = this.instances();
    if (
      (await instances.findByNonce(apl.registrationNonce)) ||
      (await instances.nonceSeen(DELETED_REGISTRATIONS, apl.registrationNonce))
    ) {
      throw new AppError('duplicateAplReceived', { field: 'apl' });
    }
    if (await instances.findPeer(fingerprint, manageType)) {
      throw new AppError('registrationExchangeAlreadyRegistered', { field: 'apl.signingCertificate' });
    }
    const now = isoNow();
    const row: ManageInstanceRow = {
      id: randomUUID(),
      manage_site_name: apl.manageSiteName,
      manage_url: peerBaseText(peerUrl),
      manage_type: manageType,
      registration_state: 'Pending',
      initiator: 0,
      signing_certificate: apl.signingCertificate.trim(),
      encryption_certificate: apl.encryptionCertificate.trim(),
      version: 1,
      created_at: now,
      updated_at: now,
      registration_nonce: apl.registrationNonce,
      signing_fingerprint: fingerprint,
    };
    await this.insert(row, 'apl');
    return { registrationId: row.id, registrationState: 'Pending' };
  }

  /** The registration held for the peer whose signing certificate has this serial number (hex, any case). */
  async stateOfKey(keySerialNumber: string): Promise<TRegistrationState | undefined> {
    const wanted = keySerialNumber.trim().toUpperCase().replace(/^0+/, '');
    for (const row of await this.instances().withSigningCertificates()) {
      const [leaf] = parseCertificateBundle(row.signing_certificate);
      if (leaf!.node.serialNumber.toUpperCase().replace(/^0+/, '') === wanted)
        return row.registration_state as TRegistrationState;
    }
    return undefined;
  }

  /**
   * `POST /ui/manage/approve`, `/ui/trace/approve`: the peer is told first; if it cannot be, nothing
   * changes. A peer that answers it holds that decision already (told by an attempt whose answer was
   * lost) counts as told. The change is stored only from the state and `version` read: another
   * change meanwhile makes it {@link lostDecision}.
   */
  async approve(relations: readonly PeerRelation[], input: TRegistrationApproveRequest): Promise<ManageInstanceRow> {
    const row = await this.instances().find(input.id, relations);
    if (!row) throw new AppError('registrationNotPresent', { field: 'id' });
    if (row.registration_state === 'Cancelled') throw new AppError('registrationHasBeenCanceled', { field: 'id' });
    if (row.registration_state === 'Suspended') {
      throw new AppError('registrationTargetCannotUnsuspend', {
        field: 'id',
        description: 'The peer suspended this registration; only the peer can lift it',
      });
    }
    if (row.initiator === 1) throw new AppError('registrationInitiatorCantApprove', { field: 'id' });
    const state: TRegistrationState = input.approve ? 'Approved' : 'Rejected';
    const already = input.approve ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected';
    if (row.registration_state === state) throw new AppError(already, { field: 'approve' });
    try {
      await this.notify(row, '/apl/registration/update', state);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.token !== already) {
        throw new AppError(input.approve ? 'registrationRemoteApprovalFailed' : 'registrationRemoteRejectFailed', {
          description: `${row.manage_url} was not told (${error.token}): ${error.message}`,
        });
      }
    }
    const lost = await this.database.transaction(async (trx) => {
      const instances = this.instances(trx);
      if (await instances.changeState(row.id, row.registration_state, state, isoNow(), row.version)) return undefined;
      return this.lostDecision(trx, relations, row.id, state);
    });
    if (lost) throw lost;
    return (await this.instances().find(row.id, relations))!;
  }

  /**
   * A decision the peer was told (`told`) but that another change stored first: answers the error
   * naming the state that won. Gone: `registrationNotPresent`, Cancelled:
   * `registrationHasBeenCanceled` (the peer is told by the cancellation job or cancelled it
   * itself), Suspended by the peer: `registrationTargetCannotUnsuspend`. Decided by another request
   * (or told again by the notice job): `registrationAlreadyApproved` / `…Rejected`; when that is the
   * other decision, the peer may have taken `told` after it, so a `registrations.notice` job,
   * enqueued in the caller's transaction, tells it the decision that stands again until it holds it.
   */
  private async lostDecision(
    trx: Kysely<DB>,
    relations: readonly PeerRelation[],
    id: string,
    told: TRegistrationState,
  ): Promise<AppError> {
    const now = await this.instances(trx).find(id, relations);
    if (!now)
      return new AppError('registrationNotPresent', { field: 'id', description: 'The registration was deleted meanwhile' });
    const state = now.registration_state as TRegistrationState;
    if (state === 'Cancelled') return new AppError('registrationHasBeenCanceled', { field: 'id' });
    if (state === 'Suspended') {
      return new AppError('registrationTargetCannotUnsuspend', {
        field: 'id',
        description: 'The peer suspended this registration meanwhile; only the peer can lift it',
      });
    }
    if (state !== 'Approved' && state !== 'Rejected') {
      return new AppError('registrationExchangeInvalidRegistration', {
        description: 'The registration changed at the same time; try again',
      });
    }
    let description = `The registration was ${state.toLowerCase()} meanwhile`;
    if (state !== told) {
      await enqueueRegistrationNotice(trx, this.database.dialect, now, sentAplType[now.manage_type as PeerRelation], state);
      description += `; ${now.manage_url} was told ${told} and is told ${state} again by a background job (registrations.notice)`;
    }
    return new AppError(state === 'Approved' ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected', {
      field: 'approve',
      description,
    });
  }

  /**
   * `POST /ui/manage/delete`, `/ui/trace/delete`: a row an authorization names stays, Cancelled;
   * the peer is told by a job (`registrations.cancel`) enqueued with the change, retried until it
   * answers. The row is locked before the authorizations naming it are looked for: an authorize
   * batch writing one holds it shared (`AuthorizationsService`), so the delete either sees that
   * authorization or the batch finds the registration gone or Cancelled and refuses the request.
   */
  async delete(relations: readonly PeerRelation[], id: string): Promise<void> {
    await this.database.transaction(async (trx) => {
      const instances = this.instances(trx);
      const row = await instances.lock(id, relations, this.database.dialect);
      if (!row) throw new AppError('registrationNotPresent', { field: 'id' });
      if (await instances.referenced(id)) await instances.changeState(id, row.registration_state, 'Cancelled', isoNow());
      else {
        await instances.delete(id);
        if (row.registration_nonce) await instances.rememberNonce(DELETED_REGISTRATIONS, row.registration_nonce, isoNow());
      }
      if (row.registration_nonce && row.registration_state !== 'Cancelled') {
        await enqueueRegistrationNotice(
          trx,
          this.database.dialect,
          row,
          sentAplType[row.manage_type as PeerRelation],
          'Cancelled',
        );
      }
    });
  }

  /**
   * `POST /apl/registration/update` (Approved or Rejected by the side that did not ask; not on a
   * Suspended registration: `registrationTargetCannotUnsuspend`),
   * `/apl/registration/delete` (Cancelled by either side) and `/apl/registration/status`
   * (Suspended, or Approved again to lift it, by either side), signed by the peer's registered key.
   */
  async receiveNotice(
    input: TAplRegistrationRequest & { aplType: PeerAplType },
    path: NoticePath,
  ): Promise<TAplPeerRegistrationResponse> {
    const notice = parseApl(ZRegistrationNoticeApl, input.apl);
    const row = await this.authenticate(input, notice);
    if (row.registration_state === 'Cancelled') throw new AppError('registrationHasBeenCanceled', { field: 'apl' });
    const expected = expectedStates[path];
    if (!expected.includes(notice.registrationState)) {
      throw new AppError('registrationExchangeInvalidRegistration', {
        field: 'apl.registrationState',
        description: `${path} carries ${expected.join(' or ')}, not ${notice.registrationState}`,
      });
    }
    if (path === '/apl/registration/status') checkStatusChange(row.registration_state, notice.registrationState);
    if (path === '/apl/registration/update') {
      if (row.initiator === 0) throw new AppError('registrationInitiatorCantApprove', { field: 'apl.registrationState' });
      // a decision does not lift a suspension (nor turn it into a rejection): only /status does
      if (row.registration_state === 'Suspended') {
        throw new AppError('registrationTargetCannotUnsuspend', {
          field: 'apl.registrationState',
          description: 'The registration is suspended; /apl/registration/status with Approved lifts a suspension',
        });
      }
      if (row.registration_state === notice.registrationState) {
        throw new AppError(
          notice.registrationState === 'Approved' ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected',
          {
            field: 'apl.registrationState',
          },
        );
      }
    }
    await this.database.transaction(async (trx) => {
      await this.rememberNonce(trx, row.id, notice.nonce);
      await this.transition(row, notice.registrationState, this.instances(trx));
    });
    return { registrationId: row.id, registrationState: notice.registrationState };
  }

  /**
   * A signed message from a registered peer (a notice, an outbox message): the registration its
   * `registrationNonce` names, held as its `aplType` says (`registrationNotPresent`), signed by the
   * key registered there, whose certificate chain is valid now (`registrationSignatureInvalid`), with a `timestamp` within five minutes
   * (`registrationExchangeInvalidApl`) and a `nonce` not seen before (`duplicateAplReceived`).
   * The caller remembers the nonce with {@link rememberNonce} in the transaction that applies it.
   */
  async authenticate(
    input: TAplRegistrationRequest & { aplType: PeerAplType },
    apl: { registrationNonce: string; timestamp: string; nonce: string },
  ): Promise<ManageInstanceRow> {
    const row = await this.instances().findByNonce(apl.registrationNonce);
    if (!row?.signing_certificate || row.manage_type !== heldAs[input.aplType]) {
      throw new AppError('registrationNotPresent', { field: 'apl.registrationNonce' });
    }
    await verifyAplSignature(input, validSigningCertificate(storedChain(row.signing_certificate), 'peer'));
    checkSignedRecently(apl.timestamp, 'apl.timestamp');
    if (await this.instances().nonceSeen(row.id, apl.nonce)) throw replayed();
    return row;
  }

  /**
   * Keeps a message's nonce (a second message with it is a replay) — for twice the timestamp
   * window: the purge job (`outbox.purge`) forgets older ones, whose messages' timestamps are
   * refused anyway.
   */
  async rememberNonce(trx: Kysely<DB>, registrationId: string, nonce: string): Promise<void> {
    const instances = this.instances(trx);
    try {
      await instances.rememberNonce(registrationId, nonce, isoNow());
    } catch (error) {
      if (isUniqueViolation(error)) throw replayed();
      throw error;
    }
  }

  private async transition(row: ManageInstanceRow, to: TRegistrationState, instances = this.instances()): Promise<void> {
    if (!(await instances.changeState(row.id, row.registration_state, to, isoNow()))) {
      throw new AppError('registrationExchangeInvalidRegistration', {
        description: 'The registration changed at the same time; try again',
      });
    }
  }

  private async notify(row: ManageInstanceRow, path: NoticePath, registrationState: TRegistrationState): Promise<void> {
    const notice: TRegistrationNoticeApl = {
      registrationNonce: row.registration_nonce!,
      registrationState,
      timestamp: isoNow(),
      nonce: randomUUID(),
    };
    const peerUrl = parsePeerUrl(row.manage_url, this.config.peers.allowedHosts);
    const signed = await signApl(this.credentials, sentAplType[row.manage_type as PeerRelation], notice);
    await postNotice(this.config.peers, peerUrl, path, signed, registrationState);
  }

  private async insert(row: ManageInstanceRow, field: string): Promise<void> {
    await this.licence.assertRoom('peerInstances');
    try {
      await this.instances().insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('registrationExchangeAlreadyRegistered', { field });
      throw error;
    }
  }
}
