import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { DB } from '../db/schema.js';
import type { Storage } from '../storage/storage.js';
import type { JobDefinition, JobLog } from './job-runner.js';
import { StorageReferencesRepository } from './storage-references.repository.js';

export const STORAGE_SWEEP = 'storage.sweep';

const BATCH = 500;

/**
 * Removes what no one will read again: temporary files of uploads that never finished, images
 * nothing shows any more (replaced or left by their owner while the process died before removing
 * them), and stored objects no row refers to (an upload whose row was never written, an object
 * whose row went while the process died before deleting it). Images and objects go only when
 * older than `graceSeconds` (a put writes its object before the row that refers to it is
 * committed); temporary uploads when unchanged for `tempGraceSeconds` beyond the time a live
 * upload at `minBytesPerSecond` may take between two writes (`abandonedBefore` in storage.ts: a live upload,
 * in any process, keeps writing).
 */
export function storageSweepJob(
  db: Kysely<DB>,
  storage: Storage,
  options: {
    graceSeconds: number;
    tempGraceSeconds: number;
    minBytesPerSecond: number;
    log: JobLog;
    now?: () => Date;
  },
): JobDefinition<null> {
  const references = new StorageReferencesRepository(db);
  return {
    payload: z.null(),
    async run(_payload, { signal }) {
      const now = (options.now?.() ?? new Date()).getTime();
      const cutoff = new Date(now - options.graceSeconds * 1000);
      const uploads = await storage.removeAbandonedUploads({
        now: new Date(now),
        graceSeconds: options.tempGraceSeconds,
        minBytesPerSecond: options.minBytesPerSecond,
      });
      // before the objects: the objects of the images removed go in the same sweep
      const images = await references.removeUnusedImages(cutoff.toISOString());
      let objects = 0;
      const sweep = async (keys: string[]) => {
        const kept = await references.referenced(keys);
        for (const key of keys) {
          if (kept.has(key)) continue;
          await storage.delete(key);
          objects += 1;
        }
      };
      let batch: string[] = [];
      for await (const object of storage.list()) {
        if (signal.aborted) break;
        if (object.storedAt >= cutoff) continue;
        batch.push(object.key);
        if (batch.length === BATCH) {
          await sweep(batch);
          batch = [];
        }
      }
      if (!signal.aborted) await sweep(batch);
      if (uploads + images + objects > 0) {
        options.log.info(
          `storage sweep: removed ${uploads} abandoned uploads, ${images} images nothing shows and ${objects} unreferenced objects`,
        );
      }
    },
  };
}
