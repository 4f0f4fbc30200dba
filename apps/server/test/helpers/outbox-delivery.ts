import { revokeAfterLateDelivery } from '../../src/modules/licensing/delegation.js';
import { OutboxDelivery } from '../../src/modules/outbox/outbox-delivery.js';
import { transferCarriers } from '../../src/modules/peer-designs/transfers.service.js';
import type { TestApp } from './test-app.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Delivers the due outbox messages of the app under test (its own worker is not started), wired
 * as the jobs module wires the delivery worker, with the retry back-off and attempts given.
 */
export async function deliverOutbox(ctx: TestApp, retryBaseMs = 60_000, maxAttempts = 20): Promise<void> {
  const { database, credentials, storage } = ctx.app.services;
  await new OutboxDelivery(
    database,
    credentials,
    ctx.config.peers,
    { ...ctx.config.outbox, retryBaseMs, retryMaxMs: retryBaseMs, maxAttempts },
    { owner: 'outbox-test', pollIntervalMs: 60_000, leaseSeconds: 60, stopTimeoutMs: 1000, log: quiet },
    { authorization: revokeAfterLateDelivery(database.dialect) },
    transferCarriers(database, storage, credentials),
  ).runDue();
}
