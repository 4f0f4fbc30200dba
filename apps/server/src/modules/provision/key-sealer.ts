import { openPrivateKey, sealPrivateKey } from '../../crypto/key-pairs.js';

/** Seals and opens private keys under the key-encryption key, which never leaves this object. */
export class KeySealer {
  readonly #key: Buffer;

  constructor(keyEncryptionKey: Buffer) {
    this.#key = Buffer.from(keyEncryptionKey);
  }

  seal(privateKeyPem: string): string {
    return sealPrivateKey(privateKeyPem, this.#key);
  }

  open(sealed: string): string {
    return openPrivateKey(sealed, this.#key);
  }

  /** Keeps the key out of logs and serialisations. */
  toJSON(): string {
    return '[KeySealer]';
  }
}
