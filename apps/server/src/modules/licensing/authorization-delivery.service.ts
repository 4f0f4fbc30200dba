import type { TAuthorization } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { type AuthorizationRecord, isExpired } from './authorizations.repository.js';
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
   * order (neither revoked nor expired). Anything else that cannot go (the one named revoked or
   * expired, a machine not approved or disabled) refuses the whole call with
   * `sendingAuthorizationFailed`, and nothing is sent.
   */
  async send(
    input: { orderId: string; authorizationId?: string | null | undefined; sendAll?: boolean | null | undefined },
    caller: Caller,
  ): Promise<{ data: SentAuthorization[] }> {
    const sent = await this.database.transaction(async (trx) => {
      const changes = new LicensingChanges(trx, this.database.dialect);
      const { order, authorization } = await orderAndAuthorization(changes, input.orderId, input.authorizationId, caller);
      const now = isoNow();
      let targets: AuthorizationRecord[];
      if (authorization && input.sendAll !== true) targets = [authorization];
      else {
        const all = await changes.authorizations.ofOrder(order.id);
        if (all.length === 0) throw new AppError('orderHasNoAuthorizations', { field: 'orderId' });
        // every live one: a revoked or expired authorization can never go, so it is left out rather
        // than refusing the rest of the order for ever
        targets = all.filter((row) => row.state !== 'revoked' && !isExpired(row, now));
        if (targets.length === 0)
          throw new AppError('sendingAuthorizationFailed', {
            field: 'orderId',
            description: 'Every authorization of the order is revoked or expired',
          });
      }
      const problems = new ErrorCollector();
      // the recipients and the queued deliveries of every target in one query each
      const recipients = new RecipientsRepository(trx);
      const toDevices = targets.filter((target) => target.target_kind === 'device');
      const toManages = targets.filter((target) => target.target_kind === 'manage');
      const devices = await recipients.findDevices(toDevices.map((target) => target.device_id!));
      const manages = await recipients.findManages(toManages.map((target) => target.manage_id!));
      for (const target of targets) {
        const field = `authorizations.${target.id}`;
        if (target.state === 'revoked') problems.add('sendingAuthorizationFailed', field, 'The authorization is revoked');
        else if (isExpired(target, now)) problems.add('sendingAuthorizationFailed', field, 'The authorization has expired');
        else if (target.target_kind === 'device') {
          const device = devices.get(target.device_id!);
          if (!device || device.registration_state !== 'Approved' || device.disabled === 1)
            problems.add('sendingAuthorizationFailed', field, 'The machine is not approved, disabled or deregistered');
        } else if (manages.get(target.manage_id!)?.registration_state !== 'Approved')
          problems.add('sendingAuthorizationFailed', field, 'The downstream Manage instance is not approved');
      }
      problems.throwIfAny();
      const queued = await changes.outbox.queuedDeliveries(toManages.map((target) => target.id));
      await changes.outbox.enqueueMany(
        toManages
          .filter((target) => !queued.has(target.id))
          .map((target) => ({
            kind: 'authorization' as const,
            targetKind: 'manage' as const,
            targetId: target.manage_id!,
            subjectId: target.id,
            body: delegatedAuthorization(order, target),
          })),
        now,
      );
      const sending = targets.filter((target) => target.state === 'authorized');
      await changes.authorizations.markSent(
        sending.map((target) => target.id),
        now,
      );
      await changes.auditMany(
        sending.map((target) => ({
          actor: caller,
          type: 'licenceSent' as const,
          orderId: order.id,
          details: { authorizationId: target.id, target: target.device_id ?? target.manage_id },
        })),
      );
      const results: SentAuthorization[] = targets.map((target) => ({
        authorizationId: target.id,
        state: target.state === 'authorized' ? 'sent' : target.state,
        delivery: target.target_kind === 'manage' ? (queued.get(target.id) ?? 'pending') : null,
      }));
      return results;
    });
    return { data: sent };
  }
}
