import {
  ZCertificateChainResponse,
  ZErrorResponse,
  type ErrorToken,
  type TCertificateChainResponse,
  type TReplyRequest,
  type TService,
} from '@manifold/contract';
import { verifyCertificateChain, type CertificateDescription } from '../crypto/certificates.js';
import { AppError } from '../lib/app-error.js';
import { parsePeerUrl, peerEndpoint, peerRequest, PeerHttpError, type PeerHttpConfig, parseJsonText } from './http-client.js';

export const CERTIFICATE_CHAIN_PATH = '/certificate/certificateChain';

export interface CertificateExchangeRequest {
  /** The peer's base address (http or https), e.g. `https://manage.example.com`. */
  peerUrl: string;
  replyRequest: TReplyRequest;
  /** Our service, as the peer should see it; default manage. */
  certificateType?: TService;
  /** Our certificate chain (PEM, leaf first). */
  certificate: string[];
  /** The network roots the peer's certificates must chain to. */
  trustAnchors: string[];
  /** The outbound-call policy (allow-list, timeouts): `config.peers`. */
  http: PeerHttpConfig;
  /** Read timeout of this call, ms; default `http.readTimeoutMs`. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** The instant to check validity at; default now. */
  at?: Date;
}

export interface PeerCertificates extends TCertificateChainResponse {
  /** The verified paths (leaf first, trust anchor last) of the certificates received. */
  signingPath: CertificateDescription[] | null;
  encryptionPath: CertificateDescription[] | null;
}

export const DEFAULT_EXCHANGE_MAX_RESPONSE_BYTES = 256 * 1024;

/** Peer tokens passed through as they are: the peer refused our chain, or has no certificates. */
const relayedPeerTokens: ErrorToken[] = [
  'certificateExchangeMissingCertificate',
  'certificateExchangeChainVerifyFail',
  'certificateExchangeCertificateChainVerifyFail',
  'certificateExchangeNotInitialized',
];

/**
 * Calls a peer's `POST /certificate/certificateChain` with our chain and verifies what it
 * answers against our trust anchors, through the safe peer client (`http-client.ts`). Failures:
 * `httpClientBadUrl` (not an http(s) address, or outside `PEER_ALLOWED_HOSTS`),
 * `certificateExchangeCommunicationFailed` (unreachable, timeout, redirect, unexpected status),
 * `certificateExchangeInvalidResponse` (too large, not JSON, wrong shape), the peer's own
 * exchange token when it refused us, `certificateExchangeMissingCertificate` (a certificate we
 * asked for is absent) and `certificateExchangeChainVerifyFail` (its chain does not verify).
 */
export async function requestPeerCertificates(request: CertificateExchangeRequest): Promise<PeerCertificates> {
  const base = parsePeerUrl(request.peerUrl, request.http.allowedHosts);
  const { status, text } = await peerRequest(request.http, {
    method: 'POST',
    url: peerEndpoint(base, CERTIFICATE_CHAIN_PATH),
    body: {
      replyRequest: request.replyRequest,
      certificateType: request.certificateType ?? 'manage',
      certificate: request.certificate,
    },
    limits: {
      maxResponseBytes: request.maxResponseBytes ?? DEFAULT_EXCHANGE_MAX_RESPONSE_BYTES,
      ...(request.timeoutMs ? { readTimeoutMs: request.timeoutMs } : {}),
    },
  }).catch(failure);
  if (status < 200 || status > 299) throw peerRefusal(status, text);
  const answer = ZCertificateChainResponse.safeParse(parseJsonText(text));
  if (!answer.success) {
    throw new AppError('certificateExchangeInvalidResponse', {
      description: `The peer's answer is not a certificate chain response: ${answer.error.issues[0]?.message ?? 'wrong shape'}`,
    });
  }
  const verify = (purpose: 'signing' | 'encryption', pem: string | null): CertificateDescription[] | null => {
    const wanted = request.replyRequest === 'both' || request.replyRequest === purpose;
    if (!wanted) return null;
    if (!pem) {
      throw new AppError('certificateExchangeMissingCertificate', { description: `The peer sent no ${purpose} certificate` });
    }
    const verification = verifyCertificateChain({
      leaf: pem,
      trustAnchors: request.trustAnchors,
      ...(request.at ? { at: request.at } : {}),
    });
    if (!verification.valid) {
      throw new AppError('certificateExchangeChainVerifyFail', {
        description: `The peer's ${purpose} certificate chain does not verify (${verification.failure}): ${verification.description}`,
      });
    }
    return verification.path;
  };
  const signingPath = verify('signing', answer.data.signingCertificate);
  const encryptionPath = verify('encryption', answer.data.encryptionCertificate);
  return {
    signingCertificate: signingPath ? answer.data.signingCertificate : null,
    encryptionCertificate: encryptionPath ? answer.data.encryptionCertificate : null,
    signingPath,
    encryptionPath,
  };
}

function failure(error: unknown): never {
  if (error instanceof PeerHttpError) {
    throw new AppError(
      error.failure === 'tooLarge' ? 'certificateExchangeInvalidResponse' : 'certificateExchangeCommunicationFailed',
      {
        description: error.message,
      },
    );
  }
  throw error;
}

function peerRefusal(status: number, text: string): AppError {
  const error = ZErrorResponse.safeParse(parseJsonText(text));
  if (error.success && (relayedPeerTokens as string[]).includes(error.data.errorToken)) {
    return new AppError(error.data.errorToken as ErrorToken, {
      description: `The peer answered: ${error.data.errorDescription}`,
    });
  }
  const detail = error.success ? ` ${error.data.errorToken}: ${error.data.errorDescription}` : '';
  return new AppError('certificateExchangeCommunicationFailed', { description: `The peer answered HTTP ${status}${detail}` });
}
