/**
 * What design packages need of the server's credentials (provided by `ServerCredentials`):
 * the encryption certificate to wrap content keys for, the private key to unwrap them, and the
 * signing key for build manifests. Each throws `provisionNotInitialized` before provisioning.
 */
export interface DesignKeys {
  encryptionIdentity(): Promise<{ certificatePem: string }>;
  unwrapContentKey(wrappedKey: string): Promise<Buffer>;
  /** The signing key and certificate: builds sign inside their transaction without another query. */
  signingIdentity(): Promise<{ certificatePem: string; privateKeyPem: string }>;
}
