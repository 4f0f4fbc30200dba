import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { aplTypes, type TRegistrationNoticeApl } from '@manifold/contract';
import type { JobDefinition } from '../../jobs/job-runner.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl, type PeerHttpConfig } from '../../peers/http-client.js';
import { postApl } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { signApl } from './apl-checks.js';

export const REGISTRATION_CANCEL = 'registrations.cancel';

/** Attempts before a cancellation the peer never took is given up (about 1 h 25 min of back-off). */
export const REGISTRATION_CANCEL_ATTEMPTS = 12;

const ZCancelPayload = z.object({
  peerUrl: z.string(),
  aplType: z.enum(aplTypes),
  registrationNonce: z.uuid(),
});
export type RegistrationCancelPayload = z.infer<typeof ZCancelPayload>;

/** Answers of a peer that mean it holds the registration as cancelled already, or never held it. */
const settled = new Set(['registrationHasBeenCanceled', 'registrationNotPresent', 'duplicateAplReceived']);

/**
 * Tells a peer that a registration deleted here is cancelled (`/apl/registration/delete`). Signed
 * at each attempt (fresh timestamp and nonce, so a late retry is not refused as stale); a failure
 * to reach the peer is retried with the runner's back-off; a peer that already holds it cancelled
 * counts as told.
 */
export function registrationCancelJob(
  credentials: ServerCredentials,
  http: PeerHttpConfig,
): JobDefinition<RegistrationCancelPayload> {
  return {
    payload: ZCancelPayload,
    async run({ peerUrl, aplType, registrationNonce }) {
      const notice: TRegistrationNoticeApl = {
        registrationNonce,
        registrationState: 'Cancelled',
        timestamp: isoNow(),
        nonce: randomUUID(),
      };
      try {
        await postApl(
          http,
          parsePeerUrl(peerUrl, http.allowedHosts),
          '/apl/registration/delete',
          await signApl(credentials, aplType, notice),
        );
      } catch (error) {
        if (error instanceof AppError && settled.has(error.token)) return;
        throw error;
      }
    },
  };
}
