/**
 * Why a crypto operation refused its input. Services map these to the spec's error tokens
 * (e.g. `provisionCsrInvalid`, `certificateExchangeChainVerifyFail`); this layer knows no HTTP.
 *
 * - `invalidInput`: an argument is out of range (wrong master-key length, over-long site name…).
 * - `unsupportedKey`: a key that is not RSA ≥ 2048 bits or EC P-256, or not fit for the purpose.
 * - `malformed`: PEM, DER, CSR, certificate, JWS, JWE, sealed blob or XML that cannot be parsed.
 * - `decryptionFailed`: authenticated decryption failed: wrong key or tampered data.
 * - `badSignature`: a signature (CSR, XML-DSig, JWS) does not verify against the expected key.
 * - `digestMismatch`: an XML-DSig reference digest does not match the signed content.
 * - `unsupportedAlgorithm`: an algorithm outside the allow-list (SHA-1, `none`, HS256…).
 * - `forbiddenXmlConstruct`: DOCTYPE, entity declarations, comments or processing instructions
 *   where they are not allowed.
 * - `signatureStructure`: an XML signature of an unexpected shape (several signatures or
 *   references, a reference that is not the document root, a signature not enveloped by the root).
 * - `keyMismatch`: a certificate or key does not belong with the key it is used with.
 */
export type CryptoErrorReason =
  | 'invalidInput'
  | 'unsupportedKey'
  | 'malformed'
  | 'decryptionFailed'
  | 'badSignature'
  | 'digestMismatch'
  | 'unsupportedAlgorithm'
  | 'forbiddenXmlConstruct'
  | 'signatureStructure'
  | 'keyMismatch';

export class CryptoError extends Error {
  override readonly name = 'CryptoError';

  constructor(
    readonly reason: CryptoErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCryptoError(error: unknown, reason?: CryptoErrorReason): error is CryptoError {
  return error instanceof CryptoError && (reason === undefined || error.reason === reason);
}
