import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  aplTypes,
  type TAplRegistrationRequest,
  type TDevice,
  type TDeviceDetail,
  type TPage,
  type TPageQuery,
  type TRegistrationState,
  ZEnforceApl,
} from '@manifold/contract';
import {
  describeCertificate,
  parseCertificateBundle,
  type ChainVerification,
  type ParsedCertificate,
} from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import type { KeyType } from '../../crypto/key-pairs.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { DeviceRow, ImageRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { decodeImageDataUrl, REGISTRATION_IMAGE_MAX_BYTES, storeImage } from '../images/images.js';
import { ImagesRepository } from '../images/images.repository.js';
import type { LicenceService } from '../licence/licence.service.js';
import { ruleErrors, shapeErrors, throwAll } from '../packages/device-parameters.js';
import { checkSignedRecently } from '../registrations/apl-checks.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';
import { DevicesRepository, toDevice, toDeviceDetail, type DeviceListFilter } from './devices.repository.js';

/** What registrations need of the server's credentials (provided by `ServerCredentials`). */
export interface RegistrationTrust {
  verifyWithTrustAnchors(chain: string): Promise<ChainVerification>;
}

type CertificatePurpose = 'signing' | 'encryption';

/** Key usages a machine certificate of a purpose must carry. */
function requiredUsages(purpose: CertificatePurpose, keyType: KeyType | 'other'): string[] {
  if (purpose === 'signing') return ['digitalSignature'];
  return keyType === 'EC' ? ['keyAgreement'] : ['keyEncipherment'];
}

/**
 * The machine an approve (`approve` true) or reject decision can be made on, or the error that
 * names why not. `decidedOn`: the state the decision was first made on, when the machine changed
 * before it was written — a decision by someone else since (`Approved`/`Rejected` other than it)
 * refuses this one with the state it is in now.
 */
function decidable(row: DeviceRow | undefined, approve: boolean, decidedOn?: string): DeviceRow {
  if (!row) throw new AppError('registrationNotPresent', { field: 'id' });
  const state = row.registration_state;
  if (state === 'Cancelled') throw new AppError('registrationHasBeenCanceled', { field: 'id' });
  const decidedMeanwhile = decidedOn !== undefined && state !== decidedOn;
  if (state === 'Approved' && (approve || decidedMeanwhile))
    throw new AppError('registrationAlreadyApproved', {
      field: 'approve',
      description: decidedMeanwhile ? 'The machine was approved meanwhile' : undefined,
    });
  if (state === 'Rejected' && (!approve || decidedMeanwhile))
    throw new AppError('registrationAlreadyRejected', {
      field: 'approve',
      description: decidedMeanwhile ? 'The machine was rejected meanwhile' : undefined,
    });
  return row;
}

/**
 * A machine registration over the network: `dateCreated` within five minutes of now
 * (`registrationExchangeInvalidApl` on `apl.dateCreated`); answers the SHA-256 of the signed record.
 */
function signedRecently(dateCreated: string | undefined, apl: unknown): string {
  if (dateCreated === undefined) {
    throw new AppError('registrationExchangeInvalidApl', {
      field: 'apl.dateCreated',
      description: 'A registration over the network carries dateCreated, the time the machine signed it',
    });
  }
  checkSignedRecently(dateCreated, 'apl.dateCreated');
  return createHash('sha256').update(canonicalJson(apl)).digest('hex');
}

type DeviceChanges = Partial<Omit<DeviceRow, 'id' | 'version'>>;

/**
 * The `peer_nonces` owner of the digests of machine registrations taken over the network: the
 * same signed record again within its `dateCreated` window is `duplicateAplReceived` (after that
 * window it is stale), so a captured registration replayed after the machine was deleted here
 * registers nothing.
 */
const MACHINE_REGISTRATIONS = 'machine-registrations';

const replayed = () =>
  new AppError('duplicateAplReceived', {
    field: 'apl',
    description: 'This registration was received before (a replay); the machine must sign a new one',
  });

/**
 * Keeps the digest of a machine registration taken over the network (first thing in its
 * transaction): one kept before is `duplicateAplReceived`, and so is one kept by a copy of the
 * record taken at the same time — its row's unique key refuses the second insert.
 */
async function rememberRegistration(trx: Kysely<DB>, digest: string, now: string): Promise<void> {
  const nonces = new PeerRegistrationsRepository(trx);
  if (await nonces.nonceSeen(MACHINE_REGISTRATIONS, digest)) throw replayed();
  try {
    await nonces.rememberNonce(MACHINE_REGISTRATIONS, digest, now);
  } catch (error) {
    if (isUniqueViolation(error)) throw replayed();
    throw error;
  }
}

/** Where a machine registration came from: the machine over the network, or its APL file uploaded by an admin. */
export type RegistrationSource = 'network' | 'file';

const deletedMeanwhile = () =>
  new AppError('deviceIdNotValid', { field: 'deviceId', description: 'The machine was deleted meanwhile' });

/**
 * Machines (Enforce devices): registration through the partner interface, then approval,
 * disabling and deletion by an administrator. State machine: Pending → Approved | Rejected
 * (either may be turned into the other by a later approve call).
 */
export class DevicesService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly trust: RegistrationTrust,
    private readonly licence: Pick<LicenceService, 'assertRoom'>,
    /** Reports a machine just approved to the Trace instances (the event queue), in the approval's transaction. */
    private readonly approved?: (trx: Kysely<DB>, deviceId: string) => Promise<void>,
  ) {}

  private devices(db: Kysely<DB> = this.database.db): DevicesRepository {
    return new DevicesRepository(db);
  }

  private audit(db: Kysely<DB>): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }

  /**
   * `POST /apl/registration/add` with `aplType: enforce`: checks the payload, that both
   * certificate chains end in a trust anchor and fit their purposes, and that the request is
   * signed by the signing key; stores the registration `Pending`. Over the network (`source`
   * `network`) the record must also have been signed within five minutes (`apl.dateCreated`,
   * `registrationExchangeInvalidApl`) and not be one taken in that window
   * (`duplicateAplReceived`); an APL file an admin uploads (`file`, `/ui/enforce/apl/upload`) may
   * be older.
   */
  async register(
    input: TAplRegistrationRequest,
    sourceIp: string,
    source: RegistrationSource = 'network',
  ): Promise<{ deviceId: string; registrationState: TRegistrationState }> {
    if (input.aplType !== 'enforce') {
      const known = (aplTypes as readonly string[]).includes(input.aplType);
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'aplType',
        description: known
          ? `Registrations of type ${input.aplType} are not served by this endpoint yet; machines register with aplType enforce`
          : `Unknown aplType "${input.aplType}"; expected one of ${aplTypes.join(', ')}`,
      });
    }
    const parsed = ZEnforceApl.safeParse(input.apl);
    if (!parsed.success) {
      throwAll(
        shapeErrors(parsed.error.issues, 'apl').map(
          (error) => new AppError('registrationExchangeInvalidApl', { field: error.field!, description: error.message }),
        ),
      );
    }
    const apl = parsed.data!;
    throwAll(ruleErrors(apl.parameters, 'apl.parameters'));

    const signing = await this.checkCertificate(apl.signingCertificate, 'signing');
    const encryption = await this.checkCertificate(apl.encryptionCertificate, 'encryption');
    if (signing.node.fingerprint256 === encryption.node.fingerprint256) {
      throw new AppError('certificateWrongPurpose', {
        field: 'apl.encryptionCertificate',
        description: 'The signing and encryption certificates must differ',
      });
    }
    await this.checkSignature(input, signing);
    // the digest of what the machine signed: the same record again is a replay
    const digest = source === 'network' ? signedRecently(apl.dateCreated, input.apl) : undefined;
    // before the picture is stored: a refusal must leave nothing behind
    await this.licence.assertRoom('machines');

    let image: ImageRow | undefined;
    if (apl.deviceIdentity.image !== undefined) {
      const bytes = decodeImageDataUrl(apl.deviceIdentity.image);
      if (!bytes) throw new AppError('imageTypeNotSupported', { field: 'apl.deviceIdentity.image' });
      image = await storeImage(this.storage, bytes, 'device', REGISTRATION_IMAGE_MAX_BYTES, 'apl.deviceIdentity.image');
    }

    const now = isoNow();
    const identity = apl.deviceIdentity;
    const row: DeviceRow = {
      id: randomUUID(),
      registration_state: 'Pending',
      identity_id: identity.id,
      name: identity.name,
      serial_number: identity.serialNumber,
      model: identity.model,
      family: identity.family ?? null,
      manufacturer: identity.manufacturer,
      device_class: identity.deviceClass ?? null,
      technology: identity.technology ?? null,
      image: image?.name ?? null,
      parameter_version: apl.parameterVersion ?? null,
      parameters: JSON.stringify(apl.parameters),
      authorized_users: '[]',
      signing_certificate: apl.signingCertificate.trim(),
      signing_fingerprint: signing.node.fingerprint256,
      encryption_certificate: apl.encryptionCertificate.trim(),
      encryption_fingerprint: encryption.node.fingerprint256,
      disabled: 0,
      version: 1,
      source_ip: sourceIp,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.database.transaction(async (trx) => {
        // the replay first: the same record again is duplicateAplReceived whether the machine is
        // still here or not, and whether the first copy has committed or is being taken right now
        if (digest !== undefined) await rememberRegistration(trx, digest, now);
        if (await this.devices(trx).findSameMachine(row.identity_id, row.signing_fingerprint)) {
          throw new AppError('registrationExchangeAlreadyRegistered', { field: 'apl.deviceIdentity.id' });
        }
        if (image) await new ImagesRepository(trx).insert(image);
        await this.devices(trx).insert(row);
        await this.audit(trx).record({
          type: 'machineRegistered',
          actor: null,
          subject: row.id,
          sourceIp,
          details: {
            id: identity.id,
            name: identity.name,
            serialNumber: identity.serialNumber,
            model: identity.model,
            manufacturer: identity.manufacturer,
          },
        });
      });
    } catch (error) {
      if (image) await this.storage.delete(image.storage_key);
      if (isUniqueViolation(error))
        throw new AppError('registrationExchangeAlreadyRegistered', { field: 'apl.deviceIdentity.id' });
      throw error;
    }
    return { deviceId: row.id, registrationState: 'Pending' };
  }

  list(page: TPageQuery, filter: DeviceListFilter = {}): Promise<TPage<TDevice>> {
    return this.devices().list(page, filter);
  }

  async fetch(deviceId: string): Promise<TDeviceDetail> {
    const row = await this.devices().find(deviceId);
    if (!row) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
    return toDeviceDetail(row);
  }

  /**
   * approve true: Approved; false: Rejected. The same decision twice is an error. The decision is
   * made on the state read and written only if the machine did not change meanwhile; when it did,
   * the machine is read again (locked) and the answer names what it is now: gone
   * (`registrationNotPresent`), decided the other way or the same way by someone else
   * (`registrationAlreadyRejected` / `registrationAlreadyApproved`), Cancelled; a change of
   * anything else (disabled, its picture) leaves the decision to be made on the row read again.
   */
  async approve(
    input: { id?: string | undefined; deviceId?: string | undefined; approve: boolean },
    caller: Caller,
  ): Promise<TDevice> {
    const id = input.id ?? input.deviceId;
    if (!id) throw new AppError('registrationNotPresent', { field: 'id' });
    return this.database.transaction(async (trx) => {
      const devices = this.devices(trx);
      const state: TRegistrationState = input.approve ? 'Approved' : 'Rejected';
      const changed = { registration_state: state, updated_at: isoNow() };
      const read = decidable(await devices.find(id), input.approve);
      const { row, updated } = await this.updateLatest(devices, read, changed, (latest) =>
        decidable(latest, input.approve, read.registration_state),
      );
      await this.audit(trx).recordBy(caller, input.approve ? 'machineApproved' : 'machineRejected', row.id, {
        from: row.registration_state,
      });
      if (input.approve && this.approved) await this.approved(trx, row.id);
      return toDevice(updated);
    });
  }

  /**
   * Disables (default) or, with `disabled: false`, enables a machine; a disabled machine gets
   * nothing. Written only if the machine did not change since it was read; when it did (approved,
   * its picture, disabled by someone else), it is read again locked and the change is made on that
   * row — or answered as it is when it already is so, `deviceIdNotValid` when it is gone.
   */
  async setDisabled(input: { deviceId: string; disabled: boolean }, caller: Caller): Promise<TDevice> {
    return this.database.transaction(async (trx) => {
      const devices = this.devices(trx);
      const read = await devices.find(input.deviceId);
      if (!read) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
      if ((read.disabled === 1) === input.disabled) return toDevice(read);
      const changed = { disabled: input.disabled ? 1 : 0, updated_at: isoNow() };
      const { row, updated } = await this.updateLatest(devices, read, changed, (latest) => {
        if (!latest) throw deletedMeanwhile();
        return (latest.disabled === 1) === input.disabled ? null : latest;
      });
      if (!updated) return toDevice(row);
      await this.audit(trx).recordBy(caller, input.disabled ? 'machineDisabled' : 'machineEnabled', row.id);
      return toDevice(updated);
    });
  }

  /**
   * Deregisters a machine. Refused (`deviceHasLiveAuthorizations`) while it holds live
   * authorizations unless `forceDelete`; a forced delete marks those references released so
   * the authorizations feature can revoke them.
   */
  async delete(input: { deviceId: string; forceDelete: boolean }, caller: Caller): Promise<void> {
    const image = await this.database.transaction(async (trx) => {
      const devices = this.devices(trx);
      const row = await devices.lock(input.deviceId, this.database.dialect);
      if (!row) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
      const live = await devices.countLiveAuthorizations(row.id);
      if (live > 0 && !input.forceDelete) throw new AppError('deviceHasLiveAuthorizations', { field: 'forceDelete' });
      if (live > 0) await devices.releaseReferences(row.id);
      await devices.delete(row.id);
      await this.audit(trx).recordBy(caller, 'machineDeregistered', row.id, {
        forced: input.forceDelete,
        liveAuthorizations: live,
        name: row.name,
      });
      return row.image;
    });
    if (image) await this.removeImage(image);
  }

  /**
   * Replaces the machine's picture (PNG, JPEG or WebP, checked by content). Written only if the
   * machine did not change since it was read; when it did (approved, disabled, another picture),
   * the picture is set on the machine read again locked, `deviceIdNotValid` when it is gone. A
   * picture not set (refused, or the transaction failed) is removed from the storage again.
   */
  async setImage(input: { deviceId: string; bytes: Buffer }, caller: Caller): Promise<TDevice> {
    if (!(await this.devices().find(input.deviceId))) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
    const image = await storeImage(this.storage, input.bytes, 'device');
    let previous: string | null = null;
    let device: TDevice;
    try {
      device = await this.database.transaction(async (trx) => {
        const devices = this.devices(trx);
        const read = await devices.find(input.deviceId);
        if (!read) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
        await new ImagesRepository(trx).insert(image);
        const changed = { image: image.name, updated_at: isoNow() };
        const { row, updated } = await this.updateLatest(devices, read, changed, (latest) => {
          if (!latest) throw deletedMeanwhile();
          return latest;
        });
        await this.audit(trx).recordBy(caller, 'machineImageChanged', row.id, { image: image.name });
        previous = row.image;
        return toDevice(updated);
      });
    } catch (error) {
      await this.storage.delete(image.storage_key);
      throw error;
    }
    if (previous) await this.removeImage(previous);
    return device;
  }

  private async checkCertificate(pem: string, purpose: CertificatePurpose): Promise<ParsedCertificate> {
    const field = purpose === 'signing' ? 'apl.signingCertificate' : 'apl.encryptionCertificate';
    let leaf: ParsedCertificate;
    try {
      leaf = parseCertificateBundle(pem)[0]!;
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('certificateExchangeMissingCertificate', { field, description: `${field}: ${error.message}` });
    }
    const verification = await this.trust.verifyWithTrustAnchors(pem);
    if (!verification.valid) {
      throw new AppError('certificateExchangeChainVerifyFail', {
        field,
        description: `${field}: ${verification.failure}: ${verification.description}`,
      });
    }
    const description = describeCertificate(leaf);
    const missing = requiredUsages(purpose, description.keyType).filter(
      (usage) => !description.keyUsage.includes(usage as never),
    );
    if (description.isCa || description.keyType === 'other' || description.keyUsage.length === 0 || missing.length > 0) {
      throw new AppError('certificateWrongPurpose', {
        field,
        description: `${field}: a ${purpose} certificate must be an end-entity RSA or EC certificate with key usage ${requiredUsages(purpose, description.keyType).join(', ')} (has ${description.keyUsage.join(', ') || 'none'})`,
      });
    }
    return leaf;
  }

  private async checkSignature(input: TAplRegistrationRequest, signing: ParsedCertificate): Promise<void> {
    if (!input.signature)
      throw new AppError('registrationSignatureInvalid', {
        field: 'signature',
        description: 'The registration carries no signature',
      });
    try {
      await verifyDetachedJws(input.signature, canonicalJson(input.apl), signing.pem);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('registrationSignatureInvalid', {
        field: 'signature',
        description: `The signature does not verify: ${error.message}`,
      });
    }
  }

  /**
   * Writes `changes` to the machine `read` if it did not change since it was read. When another
   * change came first, reads it again locked (a locked read sees the latest on MariaDB too, and
   * keeps it so until this transaction ends) and lets `recheck` answer on it: throw what it is now
   * (gone, decided otherwise…), `null` to leave it as it is, or the row to write the change to.
   * Answers the row the change was made on (or left as it is) and the row written (`undefined`
   * when left).
   */
  private async updateLatest(
    devices: DevicesRepository,
    read: DeviceRow,
    changes: DeviceChanges,
    recheck: (latest: DeviceRow | undefined) => DeviceRow,
  ): Promise<{ row: DeviceRow; updated: DeviceRow }>;
  private async updateLatest(
    devices: DevicesRepository,
    read: DeviceRow,
    changes: DeviceChanges,
    recheck: (latest: DeviceRow | undefined) => DeviceRow | null,
  ): Promise<{ row: DeviceRow; updated: DeviceRow | undefined }>;
  private async updateLatest(
    devices: DevicesRepository,
    read: DeviceRow,
    changes: DeviceChanges,
    recheck: (latest: DeviceRow | undefined) => DeviceRow | null,
  ): Promise<{ row: DeviceRow; updated: DeviceRow | undefined }> {
    const updated = await devices.updateIfVersion(read.id, read.version, changes);
    if (updated) return { row: read, updated };
    const latest = await devices.lock(read.id, this.database.dialect);
    const row = recheck(latest);
    if (row === null) return { row: latest!, updated: undefined };
    const written = await devices.updateIfVersion(row.id, row.version, changes);
    if (!written) throw new Error(`device ${row.id} changed while locked`);
    return { row, updated: written };
  }

  private async removeImage(name: string): Promise<void> {
    const images = new ImagesRepository(this.database.db);
    const image = await images.find(name);
    if (!image) return;
    if (await this.devices().imageInUse(name)) return;
    await images.delete(name);
    await this.storage.delete(image.storage_key);
  }
}
