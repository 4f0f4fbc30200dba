import { isApiError } from './api-errors';
import { createStore } from './store';

/**
 * The escalated session (spec §4): sensitive actions answer `escalationRequired` until the user
 * confirms with a security key. Any refused query or mutation with that token opens the prompt
 * (the query client's caches call `requestEscalation`); the prompt is mounted once in the layout.
 * Confirming is `escalateSession` (`escalate-session.ts`), loaded with the prompt, not at start.
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
