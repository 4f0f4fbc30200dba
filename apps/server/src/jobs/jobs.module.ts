import { revokeAfterLateDelivery } from '../modules/licensing/delegation.js';
import type { Core, ServerModule } from '../modules/module.js';
import { OutboxDelivery } from '../modules/outbox/outbox-delivery.js';
import { OUTBOX_PURGE, outboxPurgeJob } from '../modules/outbox/outbox-purge.job.js';
import { transferCarriers } from '../modules/peer-designs/transfers.service.js';
import {
  REGISTRATION_CANCEL,
  REGISTRATION_NOTICE,
  registrationNoticeJob,
} from '../modules/registrations/registration-notice.job.js';
import { JOB_HISTORY_PURGE, jobHistoryPurgeJob } from './job-history-purge.js';
import { type JobLog, JobRunner } from './job-runner.js';
import { JobsRepository } from './jobs.repository.js';
import { jobsRoutes } from './jobs.routes.js';
import { JobsService } from './jobs.service.js';
import { ListShardMerger } from './list-shards.js';
import { SESSION_PURGE, sessionPurgeJob } from './session-purge.js';
import { STP_NONCE_PURGE, STP_NONCE_PURGE_SECONDS, stpNoncePurgeJob } from './stp-nonce-purge.js';
import { STORAGE_SWEEP, storageSweepJob } from './storage-sweep.js';
import { STORAGE_MOVE } from '../modules/storage/storage-settings.service.js';
import { storageMoveJob } from '../modules/storage/storage-move.job.js';

/** `jobs.enqueue` for other modules, `GET admin/jobs`, and the runner. */
export interface JobsModule extends ServerModule<{ jobs: JobsService }> {
  /** Started by `buildApp` only when asked (`startJobs`); stopped when the app closes. */
  runner: JobRunner;
}

const HOUR = 3600;

/** An outbox lease outlasts one attempt (connect and read timeouts) with room to record its outcome. */
export function outboxLeaseSeconds(leaseSeconds: number, peers: { connectTimeoutMs: number; readTimeoutMs: number }): number {
  return Math.max(leaseSeconds, Math.ceil((peers.connectTimeoutMs + peers.readTimeoutMs) / 1000) + 30);
}

/** The background jobs: the runner with every job kind and schedule, and `GET admin/jobs`. */
export function jobsModule(
  { database, storage, storageProviders, credentials, config: { jobs: config, peers, outbox, timeouts } }: Core,
  log: JobLog,
): JobsModule {
  const service = new JobsService(database);
  const runner = new JobRunner(database, service, { ...config, log });

  runner.register(SESSION_PURGE, sessionPurgeJob(database.db, log));
  runner.schedule({ kind: SESSION_PURGE, everySeconds: HOUR });
  runner.register(STP_NONCE_PURGE, stpNoncePurgeJob(database.db, log));
  runner.schedule({ kind: STP_NONCE_PURGE, everySeconds: STP_NONCE_PURGE_SECONDS });
  runner.register(
    STORAGE_SWEEP,
    storageSweepJob(database.db, storage, {
      graceSeconds: config.storageGraceSeconds,
      tempGraceSeconds: config.storageTempGraceSeconds,
      minBytesPerSecond: timeouts.uploadMinBytesPerSecond,
      log,
    }),
  );
  runner.schedule({ kind: STORAGE_SWEEP, everySeconds: HOUR, atStart: true });
  runner.register(JOB_HISTORY_PURGE, jobHistoryPurgeJob(new JobsRepository(database.db, database.dialect)));
  runner.schedule({ kind: JOB_HISTORY_PURGE, everySeconds: HOUR });
  runner.attach(new ListShardMerger(database, log));
  runner.register(STORAGE_MOVE, storageMoveJob(database, storageProviders, log));
  const registrationNotices = registrationNoticeJob(database, credentials, peers);
  runner.register(REGISTRATION_CANCEL, registrationNotices);
  runner.register(REGISTRATION_NOTICE, registrationNotices);
  runner.attach(
    new OutboxDelivery(
      database,
      credentials,
      peers,
      outbox,
      {
        owner: runner.owner,
        pollIntervalMs: config.pollIntervalMs,
        leaseSeconds: outboxLeaseSeconds(config.leaseSeconds, peers),
        stopTimeoutMs: config.stopTimeoutMs,
        log,
      },
      { authorization: revokeAfterLateDelivery(database.dialect) },
      transferCarriers(database, storage, credentials),
    ),
  );
  runner.register(OUTBOX_PURGE, outboxPurgeJob(database, outbox, log));
  runner.schedule({ kind: OUTBOX_PURGE, everySeconds: HOUR });

  return { services: { jobs: service }, runner, routes: [jobsRoutes(service)] };
}
