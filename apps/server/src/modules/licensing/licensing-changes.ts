import type { Kysely } from 'kysely';
import type { TAuditEventType } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { type AuthorizationRecord, AuthorizationsRepository } from './authorizations.repository.js';
import { EntityReferencesRepository } from './entity-references.repository.js';
import { type OrderRecord, OrdersRepository } from './orders.repository.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { RecipientsRepository } from './recipients.repository.js';

/** Who changed something: a signed-in user, or a partner (`sender:<name>`, `device:<id>`). */
export interface Actor {
  username: string;
  sourceIp: string;
}

/**
 * The repositories of licensing over one executor — the database, or the caller's transaction
 * (`new LicensingChanges(trx, dialect)`): every write a licensing service makes goes through one.
 *
 * Besides, the changes orders and authorizations share: revocations (which give unused quantity
 * back in one statement) and audit records. Every audit record of an order or its
 * authorizations has the order id as subject, so an order's history is one indexed read.
 */
export class LicensingChanges {
  readonly orders: OrdersRepository;
  readonly authorizations: AuthorizationsRepository;
  readonly references: EntityReferencesRepository;
  readonly outbox: OutboxRepository;
  private readonly auditLog: AuditRepository;

  constructor(
    private readonly db: Kysely<DB>,
    dialect: Dialect,
  ) {
    this.orders = new OrdersRepository(db, dialect);
    this.authorizations = new AuthorizationsRepository(db);
    this.references = new EntityReferencesRepository(db);
    this.outbox = new OutboxRepository(db, dialect);
    this.auditLog = new AuditRepository(db, dialect);
  }

  async audit(actor: Actor, type: TAuditEventType, orderId: string, details?: Record<string, unknown>): Promise<void> {
    await this.auditLog.recordBy(actor, type, orderId, details);
  }

  /** Several audit records of orders or their authorizations at once (multi-row inserts), in this order. */
  async auditMany(
    entries: { actor: Actor; type: TAuditEventType; orderId: string; details?: Record<string, unknown> }[],
  ): Promise<void> {
    await this.auditLog.recordMany(
      entries.map(({ actor, type, orderId, details }) => ({
        type,
        actor: actor.username,
        subject: orderId,
        sourceIp: actor.sourceIp,
        ...(details ? { details } : {}),
      })),
    );
  }

  /**
   * Revokes one authorization and gives back to the order what it has not used: its quantity less
   * the parts already made under it (broken parts the policy counted have already left its
   * quantity for `expiredQuantity`; docs/breakage-policy.md). A machine learns of it on
   * its next pull. One for a downstream Manage instance is withdrawn from the outbox while it is
   * still pending; once it has gone out (or its delivery was given up: it may have arrived), a
   * `revocation` message is queued for the downstream instance, which revokes the order it became
   * there — which needs the registration approved (`unableToRevokeDownstream` otherwise), and
   * `authorizationAssignedToDownstreamDevice` when the downstream instance handed it to one of
   * its machines as it was. Revoking on an upstream instance's word (`fromUpstream`) does not wait
   * for the downstream registration: see {@link queueRevocation}.
   */
  async revokeAuthorization(
    authorization: AuthorizationRecord,
    actor: Actor,
    now = isoNow(),
    fromUpstream = false,
  ): Promise<void> {
    if (authorization.state === 'revoked') throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    let downstream: string | undefined;
    if (authorization.target_kind === 'manage') {
      const delivery = await this.outbox.latestDelivery(authorization.id);
      if (delivery?.state === 'delivered' || delivery?.state === 'failed') {
        if (authorization.downstream_device_id !== null)
          throw new AppError('authorizationAssignedToDownstreamDevice', { field: 'authorizationId' });
        downstream = await this.queueRevocation(authorization, now, fromUpstream);
      } else if (delivery) await this.outbox.cancelPending(delivery.id, now);
    }
    if (!(await this.authorizations.markRevoked(authorization.id, now)))
      throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    const unused = Math.max(0, authorization.quantity - (await this.authorizations.madeParts(authorization.id)));
    await this.orders.returnQuantity(authorization.order_id, unused, now);
    await this.references.release({ kind: 'authorization', id: authorization.id }, now);
    await this.audit(actor, 'licenceRevoked', authorization.order_id, {
      authorizationId: authorization.id,
      quantityReturned: unused,
      target: authorization.device_id ?? authorization.manage_id,
      ...(downstream ? { downstreamRevocation: downstream } : {}),
    });
  }

  /**
   * Queues the revocation of a delivered authorization for its downstream instance; answers the
   * message id. The registration must be approved (`unableToRevokeDownstream`), except when the
   * revocation cannot be refused (`cannotRefuse`): one from this instance's upstream, or the
   * follow-up of an authorization the downstream acknowledged after it was withdrawn. Then a
   * suspended (not approved) registration gets the message when it is approved again (the outbox
   * retries it meanwhile), and a cancelled or deleted one gets none.
   */
  async queueRevocation(
    authorization: Pick<AuthorizationRecord, 'id' | 'manage_id'>,
    now: string,
    cannotRefuse = false,
  ): Promise<string | undefined> {
    const peer = await new RecipientsRepository(this.db).findManage(authorization.manage_id!);
    if (cannotRefuse && (!peer || peer.registration_state === 'Cancelled')) return undefined;
    if (!peer || (peer.registration_state !== 'Approved' && !cannotRefuse)) {
      throw new AppError('unableToRevokeDownstream', {
        field: 'authorizationId',
        description: `The downstream Manage instance is ${peer ? peer.registration_state : 'no longer registered'}`,
      });
    }
    return this.outbox.enqueue(
      {
        kind: 'revocation',
        targetKind: 'manage',
        targetId: peer.id,
        subjectId: authorization.id,
        body: { authorizationId: authorization.id, reason: 'The authorization was revoked upstream' },
      },
      now,
    );
  }

  /**
   * Revokes an order (locked by the caller), and with `includeAuthorized` every live authorization
   * of it (`fromUpstream`: on the word of the upstream instance the order came from, see {@link queueRevocation}).
   */
  async revokeOrder(
    order: OrderRecord,
    includeAuthorized: boolean,
    actor: Actor,
    reason: string,
    now = isoNow(),
    fromUpstream = false,
  ): Promise<void> {
    if (order.revoked === 1) throw new AppError('orderAlreadyRevoked', { field: 'orderId' });
    let revokedAuthorizations = 0;
    if (includeAuthorized) {
      const live = await this.authorizations.liveOfOrder(order.id);
      for (const authorization of live) await this.revokeAuthorization(authorization, actor, now, fromUpstream);
      revokedAuthorizations = live.length;
    }
    await this.orders.markRevoked(order.id, now);
    await this.references.release({ kind: 'order', id: order.id }, now);
    await this.audit(actor, 'orderRevoked', order.id, { includeAuthorized, revokedAuthorizations, reason });
  }
}
