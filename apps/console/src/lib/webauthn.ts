import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';

/**
 * The browser side of security keys. `@simplewebauthn/browser` is fetched only when a key is
 * registered or used, so screens that never touch one do not load it.
 */
export async function createCredential(options: Record<string, unknown>) {
  const { startRegistration } = await import('@simplewebauthn/browser');
  return startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
}

export async function getAssertion(options: Record<string, unknown>) {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
}
