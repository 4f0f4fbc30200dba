/**
 * Resolves in a later task of the event loop, so the browser can paint and answer input between
 * two pieces of work (a promise alone would continue in the same task).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
