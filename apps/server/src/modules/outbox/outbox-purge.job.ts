import { z } from 'zod';
import type { OutboxConfig } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { JobDefinition, JobLog } from '../../jobs/job-runner.js';
import { isoNow } from '../../lib/time.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';
import { NOTICE_WINDOW_MS } from '../registrations/peer-registrations.service.js';
import { OutboxRepository } from './outbox.repository.js';

export const OUTBOX_PURGE = 'outbox.purge';

/** Nonces of peers' signed messages are kept this long: twice the timestamp window. */
export const PEER_NONCES_KEPT_MS = 2 * NOTICE_WINDOW_MS;

/**
 * Retention of the outbox's records (docs/peer-network.md#retention): delivered and cancelled
 * messages (not authorizations) and, on the receiving side, the peers' applied message ids after
 * `OUTBOX_RETENTION_DAYS`; the peers' nonces after twice the timestamp window — a message whose
 * nonce is forgotten is older than the window, so its timestamp is refused.
 */
export function outboxPurgeJob(
  database: Database,
  config: Pick<OutboxConfig, 'retentionDays'>,
  log: JobLog,
  now: () => Date = () => new Date(),
): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const at = now().getTime();
      const kept = isoNow(new Date(at - config.retentionDays * 86_400_000));
      const outbox = new OutboxRepository(database.db, database.dialect);
      const messages = await outbox.purgeFinished(kept);
      const applied = await outbox.forgetPeerMessages(kept);
      await new PeerRegistrationsRepository(database.db).forgetNonces(isoNow(new Date(at - PEER_NONCES_KEPT_MS)));
      if (messages + applied > 0)
        log.info(`outbox purge: ${messages} finished messages and ${applied} applied peer message ids from before ${kept}`);
    },
  };
}
