import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import {
  STP_WINDOW_MS,
  stpSignedContent,
  type TPage,
  type TStpAuthorization,
  type TStpEnvelope,
  type TStpOrder,
} from '@manifold/contract';
import { parseCertificateBundle } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { pageOffset, toPage } from '../../db/paging.js';
import type { AuthorizationRow, OrderRow } from '../../db/schema-licensing.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from './licensing-changes.js';
import type { AuthorizationsService } from './authorizations.service.js';

export const UPLOAD_TOKEN_SECONDS = 15 * 60;

const refused = (token: 'stpSignatureInvalid' | 'stpTimestampOutOfWindow' | 'stpNonceReplayed', description?: string) =>
  new AppError(token, { ...(description ? { description } : {}) });

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
    private readonly authorizations: AuthorizationsService,
  ) {}

  async verify(envelope: TStpEnvelope, path: string, sourceIp: string, now = new Date()): Promise<StpCaller> {
    const device = await this.database.db
      .selectFrom('devices')
      .selectAll()
      .where('id', '=', envelope.deviceId)
      .executeTakeFirst();
    if (!device) throw refused('stpSignatureInvalid', 'No machine is registered with this deviceId');
    const { signature, ...unsigned } = envelope;
    try {
      const certificate = parseCertificateBundle(device.signing_certificate)[0]!.pem;
      await verifyDetachedJws(signature, canonicalJson(stpSignedContent(unsigned, path)), certificate);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw refused('stpSignatureInvalid', `The signature does not verify: ${error.message}`);
    }
    const skew = Math.abs(Date.parse(envelope.timestamp) - now.getTime());
    if (!(skew <= STP_WINDOW_MS)) throw refused('stpTimestampOutOfWindow');
    const nowIso = now.toISOString();
    try {
      await this.database.db
        .insertInto('stp_nonces')
        .values({ device_id: device.id, nonce: envelope.nonce, created_at: nowIso })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw refused('stpNonceReplayed');
      throw error;
    }
    // nonces older than twice the window can no longer pass the timestamp check
    await this.database.db
      .deleteFrom('stp_nonces')
      .where('device_id', '=', device.id)
      .where('created_at', '<', new Date(now.getTime() - 2 * STP_WINDOW_MS).toISOString())
      .execute();
    if (device.registration_state !== 'Approved' || device.disabled === 1) {
      throw new AppError('deviceNotApproved', { field: 'deviceId' });
    }
    return { device, actor: { username: `device:${device.id}`, sourceIp } };
  }

  /** Orders the machine holds a live (sent or received, not expired) authorization of. */
  async orders(caller: StpCaller, page: { pageNum: number; numberOfItems: number }): Promise<TPage<TStpOrder>> {
    const now = isoNow();
    const held = this.database.db
      .selectFrom('authorizations')
      .select('order_id')
      .where('device_id', '=', caller.device.id)
      .where('state', 'in', ['sent', 'received'])
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    const base = this.database.db.selectFrom('orders').where('id', 'in', held);
    const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('id').limit(page.numberOfItems).offset(pageOffset(page)).execute();
    return toPage(
      page,
      total.n,
      rows.map((row) => ({
        orderId: row.id,
        orderNumber: row.order_number,
        dsiId: row.dsi_id,
        dsiVersion: row.dsi_version,
        revisionId: row.revision_id,
        digestMethod: 'SHA-256' as const,
        digestValue: row.digest_value,
        expiration: row.expires_at,
      })),
    );
  }

  /**
   * The machine's authorizations that were sent to it and have not expired — live ones and
   * revoked ones (a revoked entry tells the machine to stop using it and carries nothing else).
   */
  async authorizationList(
    caller: StpCaller,
    page: { pageNum: number; numberOfItems: number },
  ): Promise<TPage<TStpAuthorization>> {
    const now = isoNow();
    const base = this.database.db
      .selectFrom('authorizations')
      .where('device_id', '=', caller.device.id)
      .where('sent_at', 'is not', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.numberOfItems)
      .offset(pageOffset(page))
      .execute();
    return toPage(
      page,
      total.n,
      rows.map((row) => ({
        authorizationId: row.id,
        orderId: row.order_id,
        state: row.state,
        quantity: row.state === 'revoked' ? 0 : row.quantity,
        expiration: row.expires_at,
        dateRevoked: row.revoked_at,
      })),
    );
  }

  private async available(
    caller: StpCaller,
    authorizationId: string,
  ): Promise<{ authorization: AuthorizationRow; order: OrderRow }> {
    const authorization = await this.database.db
      .selectFrom('authorizations')
      .selectAll()
      .where('id', '=', authorizationId)
      .where('device_id', '=', caller.device.id)
      .executeTakeFirst();
    const now = isoNow();
    if (
      !authorization ||
      (authorization.state !== 'sent' && authorization.state !== 'received') ||
      (authorization.expires_at !== null && authorization.expires_at <= now)
    ) {
      throw new AppError('authorizationNotAvailable', { field: 'body.authorizationId' });
    }
    const order = await this.database.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', authorization.order_id)
      .executeTakeFirstOrThrow();
    return { authorization, order };
  }

  /** The signed authorization; the first download marks it `received` (audit: licence received by machine). */
  async downloadAuthorization(caller: StpCaller, authorizationId: string): Promise<string> {
    const { authorization, order } = await this.available(caller, authorizationId);
    const xml = await this.authorizations.signedDocument(order, authorization);
    if (authorization.state === 'sent') {
      const now = isoNow();
      const result = await this.database.db
        .updateTable('authorizations')
        .set({ state: 'received', received_at: now, updated_at: now, version: sql<number>`version + 1` })
        .where('id', '=', authorization.id)
        .where('state', '=', 'sent')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) {
        await this.authorizations.audit(caller.actor, 'licenceReceivedByMachine', order.id, {
          authorizationId: authorization.id,
        });
      }
    }
    return xml;
  }

  /** One file of the authorized design revision, as stored (private files stay encrypted). */
  async downloadDesign(
    caller: StpCaller,
    input: { authorizationId: string; fileId: string },
  ): Promise<{ stream: Readable; fileName: string; sha256: string; encrypted: boolean }> {
    const { order } = await this.available(caller, input.authorizationId);
    const file = await this.database.db
      .selectFrom('revision_files')
      .selectAll()
      .where('revision_id', '=', order.revision_id)
      .where('file_id', '=', input.fileId)
      .executeTakeFirst();
    if (!file) throw new AppError('entityDoesNotExist', { field: 'body.fileId' });
    const stream = await this.storage.get(file.storage_key);
    await this.authorizations.audit(caller.actor, 'designPackageReceivedByMachine', order.id, {
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
      const authorization = await this.database.db
        .selectFrom('authorizations')
        .select(['order_id', 'state'])
        .where('id', '=', input.authorizationId)
        .where('device_id', '=', caller.device.id)
        .executeTakeFirst();
      if (!authorization || authorization.state === 'revoked' || authorization.state === 'authorized')
        throw new AppError('authorizationNotAvailable', { field: 'body.authorizationId' });
      orderId = authorization.order_id;
    }
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + UPLOAD_TOKEN_SECONDS * 1000).toISOString();
    await this.database.db
      .insertInto('upload_tokens')
      .values({
        token_hash: createHash('sha256').update(token).digest('hex'),
        device_id: caller.device.id,
        authorization_id: input.authorizationId ?? null,
        purpose: input.purpose,
        expires_at: expiresAt,
        used_at: null,
        created_at: now.toISOString(),
      })
      .execute();
    await this.authorizations.audit(caller.actor, 'uploadTokenIssued', orderId ?? caller.device.id, {
      authorizationId: input.authorizationId ?? null,
      purpose: input.purpose,
      expiresAt,
    });
    return { token, expiresAt };
  }
}
