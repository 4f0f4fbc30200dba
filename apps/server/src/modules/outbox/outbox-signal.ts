/**
 * "A message was committed to the outbox": how the code that queues a message wakes the delivery
 * workers of this process (their poll finds what other processes commit).
 */
const listeners = new Set<() => void>();

/** Calls `listener` whenever a message is committed in this process; answers how to stop. */
export function onOutboxCommitted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function outboxCommitted(): void {
  for (const listener of listeners) listener();
}
