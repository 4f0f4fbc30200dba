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

export const DEFAULT_EXCHANGE_TIMEOUT_MS = 10_000;
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
 * answers against our trust anchors. Failures: `httpClientBadUrl` (not an http(s) address),
 * `certificateExchangeCommunicationFailed` (unreachable, timeout, redirect, unexpected status),
 * `certificateExchangeInvalidResponse` (too large, not JSON, wrong shape), the peer's own
 * exchange token when it refused us, `certificateExchangeMissingCertificate` (a certificate we
 * asked for is absent) and `certificateExchangeChainVerifyFail` (its chain does not verify).
 */
export async function requestPeerCertificates(request: CertificateExchangeRequest): Promise<PeerCertificates> {
  const url = exchangeUrl(request.peerUrl);
  const timeoutMs = request.timeoutMs ?? DEFAULT_EXCHANGE_TIMEOUT_MS;
  const maxBytes = request.maxResponseBytes ?? DEFAULT_EXCHANGE_MAX_RESPONSE_BYTES;
  const { status, text } = await post(
    url,
    {
      replyRequest: request.replyRequest,
      certificateType: request.certificateType ?? 'manage',
      certificate: request.certificate,
    },
    timeoutMs,
    maxBytes,
  );
  if (status < 200 || status > 299) throw peerRefusal(status, text);
  const answer = ZCertificateChainResponse.safeParse(parseJson(text));
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

function exchangeUrl(peerUrl: string): URL {
  let base: URL;
  try {
    base = new URL(peerUrl);
  } catch {
    throw new AppError('httpClientBadUrl', { description: `Not an address: "${peerUrl.slice(0, 200)}"` });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AppError('httpClientBadUrl', { description: `Only http and https addresses are allowed, got ${base.protocol}` });
  }
  if (base.username || base.password)
    throw new AppError('httpClientBadUrl', { description: 'Addresses with credentials are not allowed' });
  return new URL(`${base.pathname.replace(/\/+$/, '')}${CERTIFICATE_CHAIN_PATH}`, base);
}

async function post(url: URL, body: unknown, timeoutMs: number, maxBytes: number): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw communicationFailed(url, error, timeoutMs);
  }
  try {
    return { status: response.status, text: await readLimited(response, maxBytes) };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw communicationFailed(url, error, timeoutMs);
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new AppError('certificateExchangeInvalidResponse', { description: `The peer's answer is larger than ${maxBytes} bytes` });
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function communicationFailed(url: URL, error: unknown, timeoutMs: number): AppError {
  const name = error instanceof Error ? error.name : '';
  const reason =
    name === 'TimeoutError' || name === 'AbortError'
      ? `no answer within ${timeoutMs} ms`
      : error instanceof Error
        ? (error.cause instanceof Error ? error.cause.message : '') || error.message
        : String(error);
  return new AppError('certificateExchangeCommunicationFailed', { description: `${url.origin} could not be reached: ${reason}` });
}

function peerRefusal(status: number, text: string): AppError {
  const error = ZErrorResponse.safeParse(parseJson(text));
  if (error.success && (relayedPeerTokens as string[]).includes(error.data.errorToken)) {
    return new AppError(error.data.errorToken as ErrorToken, {
      description: `The peer answered: ${error.data.errorDescription}`,
    });
  }
  const detail = error.success ? ` ${error.data.errorToken}: ${error.data.errorDescription}` : '';
  return new AppError('certificateExchangeCommunicationFailed', { description: `The peer answered HTTP ${status}${detail}` });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
