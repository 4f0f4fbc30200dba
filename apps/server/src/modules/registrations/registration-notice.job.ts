import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { aplTypes, type TRegistrationNoticeApl } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import type { JobDefinition } from '../../jobs/job-runner.js';
import { enqueueJob } from '../../jobs/jobs.service.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl, type PeerHttpConfig } from '../../peers/http-client.js';
import { postNotice } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { signApl } from './apl-checks.js';
import { PeerRegistrationsRepository } from './peer-registrations.repository.js';

/** A registration deleted here: the peer is told it is cancelled (`/apl/registration/delete`). */
export const REGISTRATION_CANCEL = 'registrations.cancel';
/** A decision that lost a race to the opposite one: the peer is told the one stored (`/apl/registration/update`). */
export const REGISTRATION_NOTICE = 'registrations.notice';

/** Attempts before a notice the peer never took is given up (about 1 h 25 min of back-off). */
export const REGISTRATION_NOTICE_ATTEMPTS = 12;

const noticeStates = ['Approved', 'Rejected', 'Cancelled'] as const;
type NoticeState = (typeof noticeStates)[number];

/** The path that carries each state. */
const pathOf = {
  Approved: '/apl/registration/update',
  Rejected: '/apl/registration/update',
  Cancelled: '/apl/registration/delete',
} as const satisfies Record<NoticeState, string>;

const ZNoticePayload = z
  .object({
    peerUrl: z.string(),
    aplType: z.enum(aplTypes),
    registrationNonce: z.uuid(),
    // a cancellation's payload carried neither before decisions were told by the job
    path: z.enum(['/apl/registration/update', '/apl/registration/delete']).default('/apl/registration/delete'),
    registrationState: z.enum(noticeStates).default('Cancelled'),
  })
  .refine((payload) => pathOf[payload.registrationState] === payload.path, {
    message: 'the path does not carry that state',
    path: ['path'],
  });
export type RegistrationNoticePayload = z.infer<typeof ZNoticePayload>;

/**
 * Answers of a peer that mean it holds the state already or that telling it is moot: for a
 * cancellation, it holds it cancelled or never held it; for a decision, it holds that decision, has
 * cancelled the registration or does not hold it — and for an approval, it suspended it (which it
 * can only do to an approved registration; a suspended one takes no rejection, so a rejection is
 * retried until the peer lifts its suspension).
 */
const settled: Record<NoticeState, ReadonlySet<string>> = {
  Cancelled: new Set(['registrationHasBeenCanceled', 'registrationNotPresent', 'duplicateAplReceived']),
  Approved: new Set([
    'registrationAlreadyApproved',
    'registrationHasBeenCanceled',
    'registrationNotPresent',
    'registrationTargetCannotUnsuspend',
  ]),
  Rejected: new Set(['registrationAlreadyRejected', 'registrationHasBeenCanceled', 'registrationNotPresent']),
};

/**
 * Enqueues, in the caller's transaction, the job that tells the registration's peer `state`: a
 * cancellation (`registrations.cancel`, once per registration) or the decision stored in `row`
 * (`registrations.notice`, once per stored version). `aplType` is what we are to the peer.
 */
export function enqueueRegistrationNotice(
  db: Kysely<DB>,
  dialect: Dialect,
  row: ManageInstanceRow,
  aplType: RegistrationNoticePayload['aplType'],
  state: NoticeState,
): Promise<number | undefined> {
  const payload: RegistrationNoticePayload = {
    peerUrl: row.manage_url,
    aplType,
    registrationNonce: row.registration_nonce!,
    path: pathOf[state],
    registrationState: state,
  };
  const kind = state === 'Cancelled' ? REGISTRATION_CANCEL : REGISTRATION_NOTICE;
  const dedupeKey =
    state === 'Cancelled' ? `${kind}:${row.registration_nonce}` : `${kind}:${row.registration_nonce}:${row.version}`;
  return enqueueJob(db, dialect, kind, payload, { maxAttempts: REGISTRATION_NOTICE_ATTEMPTS, dedupeKey });
}

/**
 * Tells a peer the state of a registration (both kinds, `registrations.cancel` and
 * `registrations.notice`). Signed at each attempt (fresh timestamp and nonce, so a late retry is
 * not refused as stale); a failure to reach the peer, or an answer that does not settle it, is
 * retried with the runner's back-off. A decision is told only while it is the one stored here (a
 * later change told the peer itself); should the registration change while the peer is being told
 * (a decision whose notice may have reached the peer before this one), the decision then stored is
 * told by a job of its own. Telling marks the registration changed (its `version`), so a decision
 * that read it before fails its conditional update and tells the peer what stands.
 */
export function registrationNoticeJob(
  database: Database,
  credentials: ServerCredentials,
  http: PeerHttpConfig,
): JobDefinition<RegistrationNoticePayload> {
  return {
    payload: ZNoticePayload,
    async run(payload) {
      const { peerUrl, aplType, registrationNonce, path, registrationState } = payload;
      const decision = registrationState === 'Cancelled' ? undefined : registrationState;
      const row = decision ? await new PeerRegistrationsRepository(database.db).findByNonce(registrationNonce) : undefined;
      if (decision && row?.registration_state !== decision) return;
      const notice: TRegistrationNoticeApl = { registrationNonce, registrationState, timestamp: isoNow(), nonce: randomUUID() };
      try {
        const signed = await signApl(credentials, aplType, notice);
        await postNotice(http, parsePeerUrl(peerUrl, http.allowedHosts), path, signed, registrationState);
      } catch (error) {
        if (!(error instanceof AppError) || !settled[registrationState].has(error.token)) throw error;
      }
      if (!row || !decision) return;
      await database.transaction(async (trx) => {
        const instances = new PeerRegistrationsRepository(trx);
        if (await instances.markTold(row.id, decision, row.version, isoNow())) return;
        const now = await instances.findByNonce(registrationNonce);
        if (now && (now.registration_state === 'Approved' || now.registration_state === 'Rejected')) {
          await enqueueRegistrationNotice(trx, database.dialect, now, aplType, now.registration_state);
        }
      });
    },
  };
}
