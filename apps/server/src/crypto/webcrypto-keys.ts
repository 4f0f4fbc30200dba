import { webcrypto } from 'node:crypto';
import { CryptoError } from './crypto-errors.js';
import { importPrivateKey, keyTypeOf, spkiDer, type KeyType } from './key-pairs.js';

/**
 * @peculiar/x509 signs with WebCrypto keys. These helpers import PEM keys for signing with
 * SHA-256: RSASSA-PKCS1-v1_5 for RSA, ECDSA for P-256 (an EC encryption key also signs its own
 * CSR this way, as proof of possession).
 */
export function signingAlgorithmFor(keyType: KeyType): webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams {
  return keyType === 'RSA' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: 'P-256' };
}

export function x509SigningAlgorithmFor(keyType: KeyType): webcrypto.Algorithm | webcrypto.EcdsaParams {
  return keyType === 'RSA' ? { name: 'RSASSA-PKCS1-v1_5' } : { name: 'ECDSA', hash: 'SHA-256' };
}

export async function importWebCryptoKeyPair(
  privateKeyPem: string,
): Promise<{ keyType: KeyType; keys: webcrypto.CryptoKeyPair }> {
  const privateKey = importPrivateKey(privateKeyPem);
  const keyType = keyTypeOf(privateKey);
  const algorithm = signingAlgorithmFor(keyType);
  try {
    const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
    const keys = {
      privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']),
      publicKey: await webcrypto.subtle.importKey('spki', spkiDer(privateKey), algorithm, true, ['verify']),
    };
    return { keyType, keys };
  } catch (cause) {
    throw new CryptoError('unsupportedKey', 'Key cannot be used for SHA-256 signatures', { cause });
  }
}
