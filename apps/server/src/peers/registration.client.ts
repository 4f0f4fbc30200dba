import {
  ZAplPeerRegistrationResponse,
  ZErrorResponse,
  type ErrorToken,
  type TAplPeerRegistrationResponse,
  type TRegistrationState,
} from '@manifold/contract';
import { AppError } from '../lib/app-error.js';
import { peerEndpoint, peerRequest, PeerHttpError, type PeerHttpConfig, parseJsonText } from './http-client.js';
import { type FormFile, multipartBody } from './multipart-body.js';

export type AplPath =
  | '/apl/registration/add'
  | '/apl/registration/update'
  | '/apl/registration/delete'
  | '/apl/registration/status'
  | '/apl/peer/message';

/** Where messages that carry files go. */
export type FilePath = '/mpf/design' | '/mpf/dtl';

/** The paths of notices about an existing registration. */
export type NoticePath = Exclude<AplPath, '/apl/registration/add' | '/apl/peer/message'>;

/** A signed APL message: `signature` is a detached JWS over the canonical JSON of `apl`. */
export interface SignedApl {
  aplType: string;
  apl: unknown;
  signature: string;
}

/** Registration tokens a peer answers that are relayed as they are (its refusal is the answer). */
const relayedPeerTokens = new Set<string>([
  'registrationExchangeInvalidApl',
  'registrationExchangeInvalidTarget',
  'registrationExchangeInvalidRegistration',
  'registrationExchangeAlreadyRegistered',
  'registrationExchangeDuplicateName',
  'registrationSignatureInvalid',
  'registrationAlreadyApproved',
  'registrationAlreadyRejected',
  'registrationHasBeenCanceled',
  'registrationNotPresent',
  'registrationTargetCannotUnsuspend',
  'duplicateAplReceived',
  'manageFunctionalityNotEnabled',
  'certificateExchangeChainVerifyFail',
  'traceEventIdNotValid',
]);

/** A refusal the peer answered with one of the relayed tokens; `peerField` is the field it named. */
export class PeerRefusal extends AppError {
  constructor(
    token: ErrorToken,
    description: string,
    readonly peerField: string | undefined,
  ) {
    super(token, { description });
  }
}

/**
 * Posts a signed APL message to a registered or registering peer through the safe client.
 * Failures: `httpClientBadUrl`, `registrationExchangeCommunicationFailed` (unreachable,
 * timeout, redirect, unexpected status), `registrationExchangeInvalidResponse` (an answer that is
 * not the expected JSON) or the peer's own registration token.
 */
export function postApl(http: PeerHttpConfig, peerUrl: URL, path: AplPath, message: SignedApl): Promise<unknown> {
  return postToPeer(http, peerEndpoint(peerUrl, path), message);
}

/**
 * `postApl` for a message that travels with files: a multipart form whose first field `message`
 * is the signed message (JSON) and whose `file` parts follow, streamed (docs/peer-network.md#designs-between-instances).
 */
export function postAplWithFiles(
  http: PeerHttpConfig,
  peerUrl: URL,
  path: FilePath,
  message: SignedApl,
  files: FormFile[],
): Promise<unknown> {
  const form = multipartBody([{ name: 'message', value: JSON.stringify(message) }, ...files]);
  return postToPeer(http, peerEndpoint(peerUrl, path), form.stream, { 'content-type': form.contentType });
}

async function postToPeer(http: PeerHttpConfig, url: URL, body: unknown, headers?: Record<string, string>): Promise<unknown> {
  let status: number;
  let text: string;
  try {
    ({ status, text } = await peerRequest(http, { method: 'POST', url, body, ...(headers ? { headers } : {}) }));
  } catch (error) {
    if (!(error instanceof PeerHttpError)) throw error;
    throw new AppError(
      error.failure === 'tooLarge' ? 'registrationExchangeInvalidResponse' : 'registrationExchangeCommunicationFailed',
      {
        description: error.message,
      },
    );
  }
  const answer = parseJsonText(text);
  if (status >= 200 && status <= 299) return answer;
  const refusal = ZErrorResponse.safeParse(answer);
  if (refusal.success && relayedPeerTokens.has(refusal.data.errorToken)) {
    throw new PeerRefusal(
      refusal.data.errorToken as ErrorToken,
      `The peer answered: ${refusal.data.errorDescription}`,
      refusal.data.field,
    );
  }
  const detail = refusal.success ? ` ${refusal.data.errorToken}: ${refusal.data.errorDescription}` : '';
  throw new AppError('registrationExchangeCommunicationFailed', { description: `The peer answered HTTP ${status}${detail}` });
}

/**
 * `postApl` of a notice about a registration (`/update`, `/delete`, `/status`) carrying
 * `registrationState`: told only when the peer answers that it holds that state now
 * (`{registrationId, registrationState}`); any other 2xx answer (not JSON, another shape or state:
 * not the peer that took it) is `registrationExchangeInvalidResponse`.
 */
export async function postNotice(
  http: PeerHttpConfig,
  peerUrl: URL,
  path: NoticePath,
  message: SignedApl,
  registrationState: TRegistrationState,
): Promise<void> {
  const answer = ZAplPeerRegistrationResponse.safeParse(await postApl(http, peerUrl, path, message));
  if (!answer.success || answer.data.registrationState !== registrationState) {
    throw new AppError('registrationExchangeInvalidResponse', {
      description: `The peer did not answer that it holds the registration ${registrationState}`,
    });
  }
}

/** `postApl` to `/apl/registration/add`, answering the peer's registration id and state. */
export async function postRegistration(
  http: PeerHttpConfig,
  peerUrl: URL,
  message: SignedApl,
): Promise<TAplPeerRegistrationResponse> {
  const answer = ZAplPeerRegistrationResponse.safeParse(await postApl(http, peerUrl, '/apl/registration/add', message));
  if (!answer.success) {
    throw new AppError('registrationExchangeInvalidResponse', {
      description: 'The peer did not answer a registration id and state',
    });
  }
  return answer.data;
}
