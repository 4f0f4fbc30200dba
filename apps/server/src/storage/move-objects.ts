import { StorageNotFoundError, type StorageProvider } from './storage.js';

export interface MoveProgress {
  moved: number;
  /** Keys that could not be moved this pass, with the first error. */
  failed: number;
  lastError: string | undefined;
}

/**
 * Moves every object of `from` to `to` under the same key: copied (streamed), then removed from
 * `from` once `to` holds it completely. An object `to` already holds (a pass interrupted after
 * its copy) is only removed from `from`. A failed object stays where it was and is counted.
 * Calls `progress` after each object; stops between objects when `signal` aborts.
 */
export async function moveObjects(
  from: StorageProvider,
  to: StorageProvider,
  options: { signal?: AbortSignal; progress?: (progress: MoveProgress) => Promise<void> | void } = {},
): Promise<MoveProgress> {
  const progress: MoveProgress = { moved: 0, failed: 0, lastError: undefined };
  if (from.location === to.location) return progress;
  for await (const object of from.list()) {
    if (options.signal?.aborted) break;
    try {
      if (!(await to.exists(object.key))) await to.putAs(object.key, await from.get(object.key));
      await from.delete(object.key);
      progress.moved += 1;
    } catch (error) {
      if (error instanceof StorageNotFoundError) continue; // deleted meanwhile: nothing to move
      progress.failed += 1;
      progress.lastError = error instanceof Error ? `${object.key}: ${error.message}`.slice(0, 500) : String(error);
    }
    await options.progress?.(progress);
  }
  return progress;
}

/** Counts the objects of a provider (for a move's total). */
export async function countObjects(provider: StorageProvider, signal?: AbortSignal): Promise<number> {
  let count = 0;
  for await (const _object of provider.list()) {
    if (signal?.aborted) break;
    count += 1;
  }
  return count;
}
