import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  type TDelegatedAuthorization,
  type TDeviceParameter,
  type TQualityParameter,
  ZDelegatedAuthorization,
  ZDelegatedRevocation,
} from '@manifold/contract';
import { describeCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import { parseApl } from '../registrations/apl-checks.js';
import type { AfterLateDelivery } from '../outbox/outbox-delivery.js';
import type { MessageContext, MessageHandler } from '../outbox/peer-messages.service.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import { type Actor, LicensingChanges } from './licensing-changes.js';
import type { NewOrder, OrderRecord } from './orders.repository.js';

/** The order's parameters with those the authorization set in their place (the authorization narrowed them). */
export function narrowedParameters<T>(order: T[], authorization: T[], key: (parameter: T) => string): T[] {
  const set = new Map(authorization.map((parameter) => [key(parameter), parameter]));
  const merged = order.map((parameter) => set.get(key(parameter)) ?? parameter);
  const known = new Set(order.map(key));
  return [...merged, ...authorization.filter((parameter) => !known.has(key(parameter)))];
}

/**
 * What an authorization for a downstream Manage instance carries: the order's terms narrowed as
 * the authorization says — its quantity, its expiry (else the order's), its serial numbers, its
 * parameters in place of the order's — and the order's machine constraints and design.
 */
export function delegatedAuthorization(order: OrderRecord, authorization: AuthorizationRecord): TDelegatedAuthorization {
  const serialFirst = authorization.serial_first === null ? null : Number(authorization.serial_first);
  const serialLast = authorization.serial_last === null ? null : Number(authorization.serial_last);
  return {
    authorizationId: authorization.id,
    orderId: order.id,
    orderNumber: order.order_number,
    companyName: order.company_name,
    sourceCompanyName: order.source_company_name,
    sourceDateCreated: order.source_date_created,
    design: {
      dsiId: order.dsi_id,
      revisionId: order.revision_id,
      dsiVersion: order.dsi_version,
      designName: order.design_name,
      digestValue: order.digest_value,
    },
    quantity: authorization.quantity,
    expiration: authorization.expires_at ?? order.expires_at,
    purpose: order.purpose,
    dasUrl: order.das_url,
    imageUrl: order.image_url,
    fileInformationBlockElementSize: order.file_information_block_element_size,
    deviceIdentity: order.device_identity,
    parameterVersion: order.parameter_version,
    deviceParameters: narrowedParameters<TDeviceParameter>(
      order.device_parameters,
      authorization.device_parameters,
      (p) => p.parameterId,
    ),
    qualityParameters: narrowedParameters<TQualityParameter>(
      order.quality_parameters,
      authorization.quality_parameters,
      (p) => p.id,
    ),
    breakage: {
      policy: order.breakage_policy as TDelegatedAuthorization['breakage']['policy'],
      value: order.breakage_value,
    },
    serialization:
      order.serial_type && serialFirst !== null && serialLast !== null
        ? {
            type: order.serial_type as 'Dec' | 'Hex',
            prefix: order.serial_prefix,
            first: serialFirst,
            last: serialLast,
          }
        : null,
    downstreamDevice: order.downstream_device === 1,
  };
}

/** The dedupe key of the order an upstream's authorization became: one order per peer and authorization. */
const upstreamKey = (peer: ManageInstanceRow, authorizationId: string) => `upstream|${peer.id}|${authorizationId}`;

/**
 * The downstream side of the licence chain: an authorization an approved upstream Manage
 * instance delivered becomes an order here, and its revocation revokes that order with its
 * authorizations. Both run in the transaction that records the message id as applied.
 */
export class DelegatedLicences {
  constructor(private readonly dialect: Dialect) {}

  /** The outbox message kinds this side takes, from an upstream Manage instance only. */
  handlers(): Record<'authorization' | 'revocation', MessageHandler> {
    const fromUpstream = (peer: ManageInstanceRow) => peer.manage_type === 'upStreamManage';
    return {
      authorization: {
        accepts: fromUpstream,
        apply: (trx, peer, body, context) => this.receiveAuthorization(trx, peer, body, context),
      },
      revocation: {
        accepts: fromUpstream,
        apply: (trx, peer, body, { sourceIp, now }) => this.receiveRevocation(trx, peer, body, sourceIp, now),
      },
    };
  }

  private actor(peer: ManageInstanceRow, sourceIp: string): Actor {
    return { username: `manage:${peer.manage_site_name}`, sourceIp };
  }

  async receiveAuthorization(
    trx: Kysely<DB>,
    peer: ManageInstanceRow,
    body: unknown,
    { sourceIp, now, ownSigningSerial }: MessageContext,
  ): Promise<void> {
    const input = parseApl(ZDelegatedAuthorization, body, 'apl.body');
    if (input.expiration !== null && !(Date.parse(input.expiration) > Date.parse(now))) {
      throw new AppError('expirationDateInThePast', { field: 'apl.body.expiration' });
    }
    const changes = new LicensingChanges(trx, this.dialect);
    const dedupeKey = upstreamKey(peer, input.authorizationId);
    if (await changes.orders.existsWithDedupeKey(dedupeKey)) return;
    const peerSerial = describeCertificate(parseCertificateBundle(peer.signing_certificate!)[0]!).serialNumber;
    const actor = this.actor(peer, sourceIp);
    const id = randomUUID();
    const row: NewOrder = {
      id,
      order_number: input.orderNumber,
      dedupe_key: dedupeKey,
      upstream_authorization_id: input.authorizationId,
      version: 1,
      company_name: input.companyName,
      source_company_name: input.sourceCompanyName,
      source_date_created: input.sourceDateCreated,
      source: 'upstream',
      manage_user_id: null,
      user_id: actor.username,
      dsi_id: input.design.dsiId,
      revision_id: input.design.revisionId,
      dsi_version: input.design.dsiVersion,
      design_name: input.design.designName,
      digest_value: input.design.digestValue,
      quantity: input.quantity,
      allocated: 0,
      expired_quantity: 0,
      expires_at: input.expiration,
      purpose: input.purpose,
      das_url: input.dasUrl,
      image_url: input.imageUrl,
      file_information_block_element_size: input.fileInformationBlockElementSize,
      licensee_key_sn: ownSigningSerial,
      public_key_sn: peerSerial,
      key_role_sn: null,
      device_identity: input.deviceIdentity,
      parameter_version: input.parameterVersion,
      device_parameters: input.deviceParameters,
      quality_parameters: input.qualityParameters,
      breakage_policy: input.breakage.policy,
      breakage_value: input.breakage.value,
      serial_type: input.serialization?.type ?? null,
      serial_prefix: input.serialization?.prefix ?? null,
      serial_start: input.serialization?.first ?? null,
      serial_end: input.serialization?.last ?? null,
      serial_next: input.serialization?.first ?? null,
      authorized_users: [],
      downstream_device: input.downstreamDevice ? 1 : 0,
      archived: 0,
      revoked: 0,
      revoked_at: null,
      replaces_order_id: null,
      sender_fingerprint: null,
      policy: JSON.stringify(input),
      created_at: now,
      updated_at: now,
    };
    await changes.orders.insert(row);
    await changes.audit(actor, 'licenceReceived', id, {
      orderNumber: input.orderNumber,
      source: 'upstream',
      manageId: peer.id,
      upstreamAuthorizationId: input.authorizationId,
      dsiId: input.design.dsiId,
      dsiVersion: input.design.dsiVersion,
      quantity: input.quantity,
    });
  }

  /**
   * Revokes the order the authorization became, with every authorization of it; nothing when there
   * is none (never arrived) or it is revoked. The upstream's word is not refused for this
   * instance's own downstream registrations: one suspended is sent the revocation when approved
   * again, a cancelled one none.
   */
  async receiveRevocation(trx: Kysely<DB>, peer: ManageInstanceRow, body: unknown, sourceIp: string, now: string): Promise<void> {
    const revocation = parseApl(ZDelegatedRevocation, body, 'apl.body');
    const changes = new LicensingChanges(trx, this.dialect);
    const orderId = await changes.orders.idWithDedupeKey(upstreamKey(peer, revocation.authorizationId));
    if (!orderId) return;
    const order = await changes.orders.lock(orderId);
    if (!order || order.revoked === 1) return;
    await changes.revokeOrder(order, true, this.actor(peer, sourceIp), `revoked upstream: ${revocation.reason}`, now, true);
  }
}

/**
 * An authorization withdrawn while its message was on its way, which the downstream instance
 * acknowledged after all: it holds the order now, so it is sent the revocation — also when its
 * registration was suspended meanwhile (sent once approved again; cancelled: nothing can go).
 */
export function revokeAfterLateDelivery(dialect: Dialect): AfterLateDelivery {
  return async (row, trx, now) => {
    await new LicensingChanges(trx, dialect).queueRevocation({ id: row.subject_id, manage_id: row.target_id }, now, true);
  };
}
