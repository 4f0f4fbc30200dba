import type { Kysely } from 'kysely';
import type { TAuditEventType } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { AuthorizationRow, OrderRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { LicensingRepository } from './licensing.repository.js';

/** Who changed something: a signed-in user, or a partner (`sender:<name>`, `device:<id>`). */
export interface Actor {
  username: string;
  sourceIp: string;
}

/**
 * Writes that orders and authorizations share, always inside the caller's transaction: the
 * `entity_references` rows that keep packages and machines from being deleted while in use,
 * revocations (which give unused quantity back in one statement), and audit records. Every
 * audit record of an order or its authorizations has the order id as subject, so an order's
 * history is one indexed read.
 */
export class LicensingChanges {
  constructor(
    private readonly trx: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  repository(): LicensingRepository {
    return new LicensingRepository(this.trx);
  }

  async audit(actor: Actor, type: TAuditEventType, orderId: string, details?: Record<string, unknown>): Promise<void> {
    await new AuditRepository(this.trx, this.dialect).recordBy(actor, type, orderId, details);
  }

  async reference(
    target: { kind: 'package' | 'device'; id: string },
    referrer: { kind: 'order' | 'authorization'; id: string },
    expiresAt: string | null,
  ): Promise<void> {
    await this.trx
      .insertInto('entity_references')
      .values({
        target_kind: target.kind,
        target_id: target.id,
        referrer_kind: referrer.kind,
        referrer_id: referrer.id,
        expires_at: expiresAt,
        released_at: null,
        created_at: isoNow(),
      })
      .execute();
  }

  async release(referrer: { kind: 'order' | 'authorization'; id: string }, now = isoNow()): Promise<void> {
    await this.trx
      .updateTable('entity_references')
      .set({ released_at: now })
      .where('referrer_kind', '=', referrer.kind)
      .where('referrer_id', '=', referrer.id)
      .where('released_at', 'is', null)
      .execute();
  }

  lockOrder(orderId: string): Promise<OrderRow | undefined> {
    return this.dialect.forUpdate(this.trx.selectFrom('orders').selectAll().where('id', '=', orderId)).executeTakeFirst();
  }

  /**
   * Revokes one authorization and gives its quantity back to the order. A machine learns of it on
   * its next pull. One for a downstream Manage instance is withdrawn from the outbox while it is
   * still pending; once delivered, revoking it needs the downstream instance (the peer client,
   * not here yet): `unableToRevokeDownstream`, or `authorizationAssignedToDownstreamDevice` when
   * the downstream instance has already handed it to one of its machines.
   */
  async revokeAuthorization(authorization: AuthorizationRow, actor: Actor, now = isoNow()): Promise<void> {
    if (authorization.state === 'revoked') throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    if (authorization.target_kind === 'manage') {
      const delivery = await this.trx
        .selectFrom('outbox')
        .select(['id', 'state'])
        .where('kind', '=', 'authorization')
        .where('subject_id', '=', authorization.id)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (delivery?.state === 'delivered') {
        throw new AppError(
          authorization.downstream_device_id !== null ? 'authorizationAssignedToDownstreamDevice' : 'unableToRevokeDownstream',
          { field: 'authorizationId' },
        );
      }
      if (delivery) {
        await this.trx
          .updateTable('outbox')
          .set({ state: 'cancelled', updated_at: now })
          .where('id', '=', delivery.id)
          .where('state', '=', 'pending')
          .execute();
      }
    }
    const result = await this.trx
      .updateTable('authorizations')
      .set((eb) => ({ state: 'revoked', revoked_at: now, updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', authorization.id)
      .where('state', '<>', 'revoked')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    await this.repository().returnQuantity(authorization.order_id, authorization.quantity, now);
    await this.release({ kind: 'authorization', id: authorization.id }, now);
    await this.audit(actor, 'licenceRevoked', authorization.order_id, {
      authorizationId: authorization.id,
      quantityReturned: authorization.quantity,
      target: authorization.device_id ?? authorization.manage_id,
    });
  }

  /** Revokes an order (locked by the caller), and with `includeAuthorized` every live authorization of it. */
  async revokeOrder(order: OrderRow, includeAuthorized: boolean, actor: Actor, reason: string, now = isoNow()): Promise<void> {
    if (order.revoked === 1) throw new AppError('orderAlreadyRevoked', { field: 'orderId' });
    let revokedAuthorizations = 0;
    if (includeAuthorized) {
      const live = await this.trx
        .selectFrom('authorizations')
        .selectAll()
        .where('order_id', '=', order.id)
        .where('state', '<>', 'revoked')
        .orderBy('id')
        .execute();
      for (const authorization of live) await this.revokeAuthorization(authorization, actor, now);
      revokedAuthorizations = live.length;
    }
    await this.trx
      .updateTable('orders')
      .set((eb) => ({ revoked: 1, revoked_at: now, updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', order.id)
      .execute();
    await this.release({ kind: 'order', id: order.id }, now);
    await this.audit(actor, 'orderRevoked', order.id, { includeAuthorized, revokedAuthorizations, reason });
  }
}
