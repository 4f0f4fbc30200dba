import { ZEscalateLoginResponse, ZWebAuthnOptions } from '@manifold/contract';
import { apiRequest } from './api-client';
import { getAssertion } from './webauthn';

/** Asks the server for a challenge, has a security key sign it, and escalates the session (spec §4). */
export async function escalateSession(): Promise<{ escalatedUntil: string }> {
  const options = await apiRequest('POST /ui/authenticators/assertion-options/generate', ZWebAuthnOptions);
  const credential = await getAssertion(options);
  return apiRequest('POST /ui/authenticators/escalate-login', ZEscalateLoginResponse, { body: { credential } });
}
