import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  STP_WINDOW_MS,
  stpSignedContent,
  type TPage,
  type TPageQuery,
  type TStpAuthorization,
  type TStpEnvelope,
  type TStpOrder,
} from '@manifold/contract';
import { firstCertificateKey } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { WriteSet } from '../../db/write-set.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import { type AuthorizationRecord, isExpired } from './authorizations.repository.js';
import { type Actor, LicensingChanges } from './licensing-changes.js';
import type { OrderRecord } from './orders.repository.js';
import { RecipientsRepository } from './recipients.repository.js';
import type { SignedAuthorizations } from './signed-authorization.js';
import { StpRepository } from './stp.repository.js';

export const UPLOAD_TOKEN_SECONDS = 15 * 60;

const refused = (token: 'stpSignatureInvalid' | 'stpTimestampOutOfWindow' | 'stpNonceReplayed', description?: string) =>
  new AppError(token, { description });

/** A machine whose signed request passed every check. */
export interface StpCaller {
  device: DeviceRow;
  actor: Actor;
}

/**
 * The STP calls machines make. Each request is an envelope (contract `ZStpEnvelope`) signed with
 * the machine's registered signing key over `{body, deviceId, nonce, path, timestamp}`; it is
 * refused (401) unless the signature verifies, the timestamp is within ±5 minutes and the nonce
 * was never seen from that machine. A machine that is not approved or is disabled gets
 * `deviceNotApproved`; an authorization that was not sent to it, is revoked or has expired gets
 * `authorizationNotAvailable`.
 */
export class StpService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly signed: SignedAuthorizations,
  ) {}

  private changes(): LicensingChanges {
    return new LicensingChanges(this.database.db, this.database.dialect);
  }

  private stp(): StpRepository {
    return new StpRepository(this.database.db);
  }

  async verify(envelope: TStpEnvelope, path: string, sourceIp: string, now = new Date()): Promise<StpCaller> {
    const { caller, spendNonce } = await this.check(envelope, path, sourceIp, now);
    await spendNonce(this.database.db);
    return caller;
  }

  /**
   * {@link verify} but the nonce: spent by `spendNonce` in the caller's transaction, or with its
   * gathered writes (a request whose effects commit with it — an event batch — so a durable
   * commit is one, not two).
   */
  async check(
    envelope: TStpEnvelope,
    path: string,
    sourceIp: string,
    now = new Date(),
  ): Promise<{
    caller: StpCaller;
    spendNonce: (into: Kysely<DB> | WriteSet) => Promise<void>;
    /** The refusal of this request as a replay. */
    replayed: () => AppError;
  }> {
    const device = await new DevicesRepository(this.database.db).find(envelope.deviceId);
    if (!device) throw refused('stpSignatureInvalid', 'No machine is registered with this deviceId');
    const { signature, ...unsigned } = envelope;
    try {
      const key = firstCertificateKey(device.signing_certificate);
      await verifyDetachedJws(signature, canonicalJson(stpSignedContent(unsigned, path)), key);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw refused('stpSignatureInvalid', `The signature does not verify: ${error.message}`);
    }
    const skew = Math.abs(Date.parse(envelope.timestamp) - now.getTime());
    if (!(skew <= STP_WINDOW_MS)) throw refused('stpTimestampOutOfWindow');
    // spent nonces older than twice the window are deleted by the job `stp.nonces.purge`
    // (jobs/stp-nonce-purge.ts): off the request path, one range delete for every machine
    /** Spends the nonce now (a database) or with the writes of the caller's transaction (a write set). */
    // in a transaction, the refusal rolls it back (PostgreSQL could not go on in it anyway)
    const replayed = () => refused('stpNonceReplayed');
    const spendNonce = async (into: Kysely<DB> | WriteSet) => {
      const row = { device_id: device.id, nonce: envelope.nonce, created_at: now.toISOString() };
      if (into instanceof WriteSet) {
        into.insert('stp_nonces', ['device_id', 'nonce', 'created_at'], [row], { duplicate: replayed });
        return;
      }
      try {
        await new StpRepository(into).spendNonce(row.device_id, row.nonce, row.created_at);
      } catch (error) {
        if (isUniqueViolation(error)) throw replayed();
        throw error;
      }
    };
    if (device.registration_state !== 'Approved' || device.disabled === 1) {
      await spendNonce(this.database.db);
      throw new AppError('deviceNotApproved', { field: 'deviceId' });
    }
    return { caller: { device, actor: { username: `device:${device.id}`, sourceIp } }, spendNonce, replayed };
  }

  /** Orders the machine holds a live (sent or received, not expired) authorization of. */
  orders(caller: StpCaller, page: TPageQuery): Promise<TPage<TStpOrder>> {
    return this.changes().authorizations.ordersHeldBy(caller.device.id, page, isoNow());
  }

  /**
   * The machine's authorizations that were sent to it and have not expired — live ones and
   * revoked ones (a revoked entry tells the machine to stop using it and carries nothing else).
   */
  authorizationList(caller: StpCaller, page: TPageQuery): Promise<TPage<TStpAuthorization>> {
    return this.changes().authorizations.sentTo(caller.device.id, page, isoNow());
  }

  private async available(
    caller: StpCaller,
    authorizationId: string,
  ): Promise<{ authorization: AuthorizationRecord; order: OrderRecord }> {
    const changes = this.changes();
    const authorization = await changes.authorizations.findOfDevice(authorizationId, caller.device.id);
    const now = isoNow();
    if (
      !authorization ||
      (authorization.state !== 'sent' && authorization.state !== 'received') ||
      isExpired(authorization, now)
    ) {
      throw new AppError('authorizationNotAvailable', { field: 'body.authorizationId' });
    }
    const order = (await changes.orders.find(authorization.order_id))!;
    return { authorization, order };
  }

  /** The signed authorization; the first download marks it `received` (audit: licence received by machine). */
  async downloadAuthorization(caller: StpCaller, authorizationId: string): Promise<string> {
    const { authorization, order } = await this.available(caller, authorizationId);
    const xml = await this.signed.sign(order, authorization);
    const changes = this.changes();
    if (authorization.state === 'sent' && (await changes.authorizations.markReceived(authorization.id, isoNow()))) {
      await changes.audit(caller.actor, 'licenceReceivedByMachine', order.id, { authorizationId: authorization.id });
    }
    return xml;
  }

  /** One file of the authorized design revision, as stored (private files stay encrypted). */
  async downloadDesign(
    caller: StpCaller,
    input: { authorizationId: string; fileId: string },
  ): Promise<{ stream: Readable; fileName: string; sha256: string; encrypted: boolean }> {
    const { order } = await this.available(caller, input.authorizationId);
    const file = await new RecipientsRepository(this.database.db).revisionFile(order.revision_id, input.fileId);
    if (!file) throw new AppError('entityDoesNotExist', { field: 'body.fileId' });
    const stream = await this.storage.get(file.storage_key);
    await this.changes().audit(caller.actor, 'designPackageReceivedByMachine', order.id, {
      authorizationId: input.authorizationId,
      fileId: file.file_id,
    });
    return { stream, fileName: file.file_name, sha256: file.sha256, encrypted: file.is_public === 0 };
  }

  /** A one-time upload token: random, stored only as its SHA-256, valid 15 minutes. */
  async uploadToken(
    caller: StpCaller,
    input: { authorizationId?: string | undefined; purpose: string },
  ): Promise<{ token: string; expiresAt: string }> {
    let orderId: string | null = null;
    if (input.authorizationId) {
      const authorization = await this.changes().authorizations.findOfDevice(input.authorizationId, caller.device.id);
      if (!authorization || authorization.state === 'revoked' || authorization.state === 'authorized')
        throw new AppError('authorizationNotAvailable', { field: 'body.authorizationId' });
      orderId = authorization.order_id;
    }
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + UPLOAD_TOKEN_SECONDS * 1000).toISOString();
    await this.stp().insertUploadToken({
      tokenHash: createHash('sha256').update(token).digest('hex'),
      deviceId: caller.device.id,
      authorizationId: input.authorizationId ?? null,
      purpose: input.purpose,
      expiresAt,
      createdAt: now.toISOString(),
    });
    await this.changes().audit(caller.actor, 'uploadTokenIssued', orderId ?? caller.device.id, {
      authorizationId: input.authorizationId ?? null,
      purpose: input.purpose,
      expiresAt,
    });
    return { token, expiresAt };
  }
}
