import type { TAuthorization } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import { orderAndAuthorization } from './authorizations.service.js';
import { delegatedAuthorization } from './delegation.js';
import { LicensingChanges } from './licensing-changes.js';
import { RecipientsRepository } from './recipients.repository.js';

export interface SentAuthorization {
  authorizationId: string;
  state: TAuthorization['state'];
  delivery: string | null;
}

/**
 * Sending authorizations: to a machine, an authorization becomes `sent`, i.e. offered to the
 * machine's next STP pull; to a downstream Manage instance, a message is queued in the outbox
 * (delivered and retried with back-off by the outbox's delivery worker; it becomes an order there)
 * and the authorization is `sent` with delivery `pending`.
 */
export class AuthorizationDeliveryService {
  constructor(private readonly database: Database) {}

  /**
   * Sends one authorization (an `authorizationId`, `sendAll` not true) or every live one of the
   * order. Anything that cannot go (revoked, expired, machine not approved or disabled) refuses
   * the whole call with `sendingAuthorizationFailed`, and nothing is sent.
   */
  async send(
    input: { orderId: string; authorizationId?: string | null | undefined; sendAll?: boolean | null | undefined },
    caller: Caller,
  ): Promise<{ data: SentAuthorization[] }> {
    const sent = await this.database.transaction(async (trx) => {
      const changes = new LicensingChanges(trx, this.database.dialect);
      const { order, authorization } = await orderAndAuthorization(changes, input.orderId, input.authorizationId, caller);
      let targets: AuthorizationRecord[];
      if (authorization && input.sendAll !== true) targets = [authorization];
      else {
        const all = await changes.authorizations.ofOrder(order.id);
        if (all.length === 0) throw new AppError('orderHasNoAuthorizations', { field: 'orderId' });
        targets = all.filter((row) => row.state !== 'revoked');
        if (targets.length === 0)
          throw new AppError('sendingAuthorizationFailed', {
            field: 'orderId',
            description: 'Every authorization of the order is revoked',
          });
      }
      const now = isoNow();
      const problems = new ErrorCollector();
      const recipients = new RecipientsRepository(trx);
      for (const target of targets) {
        const field = `authorizations.${target.id}`;
        if (target.state === 'revoked') problems.add('sendingAuthorizationFailed', field, 'The authorization is revoked');
        else if (target.expires_at && target.expires_at <= now)
          problems.add('sendingAuthorizationFailed', field, 'The authorization has expired');
        else if (target.target_kind === 'device') {
          const device = await recipients.findDevice(target.device_id!);
          if (!device || device.registration_state !== 'Approved' || device.disabled === 1)
            problems.add('sendingAuthorizationFailed', field, 'The machine is not approved, disabled or deregistered');
        } else {
          const manage = await recipients.findManage(target.manage_id!);
          if (manage?.registration_state !== 'Approved')
            problems.add('sendingAuthorizationFailed', field, 'The downstream Manage instance is not approved');
        }
      }
      problems.throwIfAny();
      const results: SentAuthorization[] = [];
      for (const target of targets) {
        let delivery: string | null = null;
        if (target.target_kind === 'manage') {
          const queued = await changes.outbox.queuedDelivery(target.id);
          delivery = queued?.state ?? 'pending';
          if (!queued) {
            await changes.outbox.enqueue(
              {
                kind: 'authorization',
                targetKind: 'manage',
                targetId: target.manage_id!,
                subjectId: target.id,
                body: delegatedAuthorization(order, target),
              },
              now,
            );
          }
        }
        if (target.state === 'authorized') {
          await changes.authorizations.markSent(target.id, now);
          await changes.audit(caller, 'licenceSent', order.id, {
            authorizationId: target.id,
            target: target.device_id ?? target.manage_id,
          });
        }
        results.push({ authorizationId: target.id, state: target.state === 'authorized' ? 'sent' : target.state, delivery });
      }
      return results;
    });
    return { data: sent };
  }
}
