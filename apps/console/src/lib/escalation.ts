import { ZEscalateLoginResponse, ZWebAuthnOptions } from '@manifold/contract';
import { apiRequest } from './api-client';
import { isApiError } from './api-errors';
import { createStore } from './store';
import { getAssertion } from './webauthn';

/**
 * The escalated session (spec §4): sensitive actions answer `escalationRequired` until the user
 * confirms with a security key. Any refused query or mutation with that token opens the prompt
 * (the query client's caches call `requestEscalation`); the prompt is mounted once in the layout.
 */
export const escalationStore = createStore<{ opened: boolean }>({ opened: false });

export function isEscalationRequired(error: unknown): boolean {
  return isApiError(error) && error.problems.some((problem) => problem.errorToken === 'escalationRequired');
}

export function requestEscalation(): void {
  escalationStore.set({ opened: true });
}

export function closeEscalation(): void {
  escalationStore.set({ opened: false });
}

/** Asks the server for a challenge, has a security key sign it, and escalates the session. */
export async function escalateSession(): Promise<{ escalatedUntil: string }> {
  const options = await apiRequest('POST /ui/authenticators/assertion-options/generate', ZWebAuthnOptions);
  const credential = await getAssertion(options);
  return apiRequest('POST /ui/authenticators/escalate-login', ZEscalateLoginResponse, { body: { credential } });
}
