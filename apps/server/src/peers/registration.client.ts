import {
  ZAplPeerRegistrationResponse,
  ZErrorResponse,
  type ErrorToken,
  type TAplPeerRegistrationResponse,
} from '@manifold/contract';
import { AppError } from '../lib/app-error.js';
import { peerEndpoint, peerRequest, PeerHttpError, type PeerHttpConfig, parseJsonText } from './http-client.js';

export type AplPath =
  | '/apl/registration/add'
  | '/apl/registration/update'
  | '/apl/registration/delete'
  | '/apl/registration/status'
  | '/apl/peer/message';

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
]);

/**
 * Posts a signed APL message to a registered or registering peer through the safe client.
 * Failures: `httpClientBadUrl`, `registrationExchangeCommunicationFailed` (unreachable,
 * timeout, redirect, unexpected status), `registrationExchangeInvalidResponse` (an answer that is
 * not the expected JSON) or the peer's own registration token.
 */
export async function postApl(http: PeerHttpConfig, peerUrl: URL, path: AplPath, message: SignedApl): Promise<unknown> {
  let status: number;
  let text: string;
  try {
    ({ status, text } = await peerRequest(http, { method: 'POST', url: peerEndpoint(peerUrl, path), body: message }));
  } catch (error) {
    if (!(error instanceof PeerHttpError)) throw error;
    throw new AppError(
      error.failure === 'tooLarge' ? 'registrationExchangeInvalidResponse' : 'registrationExchangeCommunicationFailed',
      {
        description: error.message,
      },
    );
  }
  const body = parseJsonText(text);
  if (status >= 200 && status <= 299) return body;
  const refusal = ZErrorResponse.safeParse(body);
  if (refusal.success && relayedPeerTokens.has(refusal.data.errorToken)) {
    throw new AppError(refusal.data.errorToken as ErrorToken, {
      description: `The peer answered: ${refusal.data.errorDescription}`,
    });
  }
  const detail = refusal.success ? ` ${refusal.data.errorToken}: ${refusal.data.errorDescription}` : '';
  throw new AppError('registrationExchangeCommunicationFailed', { description: `The peer answered HTTP ${status}${detail}` });
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
