import { type TStorageMove, ZStorageMove } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { JobDefinition, JobLog } from '../../jobs/job-runner.js';
import { countObjects, moveObjects } from '../../storage/move-objects.js';
import { type ProviderStorage, STORAGE_PROVIDER_SETTING, ZProviderSelection } from '../../storage/provider-storage.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { STORAGE_MOVE_MAX_ATTEMPTS, STORAGE_MOVE_SETTING, ZStorageMovePayload } from './storage-settings.service.js';

/** How often the progress setting is written while objects move. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Moves the stored objects from the provider selected before to the one selected now, keeping
 * their keys (rows need no change). Passes repeat until one finds nothing left (objects another
 * instance stored in the old provider before it noticed the switch are moved too); then the
 * old provider is forgotten. Progress is in the `storage.move` setting (`GET admin/storage/provider`).
 * An object that fails stays in the old provider, where reads still find it, and the job is
 * retried; after its last attempt the move is `failed` and the admin can select the same
 * provider again to restart it. A job given up otherwise (its last attempt threw before a pass,
 * or its runner died during it) leaves the move `failed` too, never `running` with nothing to run it.
 */
export function storageMoveJob(
  database: Database,
  storage: ProviderStorage,
  log: JobLog,
): JobDefinition<{ selectionId: string }> {
  const settings = new SettingsRepository(database.db);
  const readMove = async (): Promise<TStorageMove | undefined> => {
    const raw = await settings.get(STORAGE_MOVE_SETTING);
    return raw === undefined ? undefined : ZStorageMove.parse(JSON.parse(raw));
  };
  const writeMove = (move: TStorageMove) => settings.set(STORAGE_MOVE_SETTING, JSON.stringify(move));

  return {
    payload: ZStorageMovePayload,
    async run({ selectionId }, { signal, attempt }) {
      const selection = await storage.selection();
      if (!selection?.previous || selection.selectionId !== selectionId) return; // finished or superseded
      const from = storage.open(selection.previous);
      const to = storage.open(selection.current);
      const started = (await readMove()) ?? {
        from: selection.previous.identifier,
        to: selection.current.identifier,
        state: 'running' as const,
        total: 0,
        moved: 0,
        lastError: null,
        startedAt: new Date().toISOString(),
        finishedAt: null,
      };
      let moved = started.moved;
      const total = moved + (await countObjects(from, signal));
      await writeMove({ ...started, state: 'running', total, moved });
      let written = Date.now();
      for (;;) {
        const pass = await moveObjects(from, to, {
          signal,
          progress: async (progress) => {
            if (Date.now() - written < PROGRESS_EVERY_MS) return;
            written = Date.now();
            await writeMove({
              ...started,
              state: 'running',
              total: Math.max(total, moved + progress.moved),
              moved: moved + progress.moved,
            });
          },
        });
        moved += pass.moved;
        if (signal.aborted) return; // handed back: the next run goes on from here
        if (pass.failed > 0) {
          const last = attempt >= STORAGE_MOVE_MAX_ATTEMPTS;
          await writeMove({
            ...started,
            state: last ? 'failed' : 'running',
            total: Math.max(total, moved + pass.failed),
            moved,
            lastError: pass.lastError ?? null,
            finishedAt: last ? new Date().toISOString() : null,
          });
          throw new Error(`storage move: ${pass.failed} objects could not be moved (${pass.lastError})`);
        }
        if (pass.moved === 0) break;
      }
      await database.transaction(async (trx) => {
        const repository = new SettingsRepository(trx);
        const raw = await repository.get(STORAGE_PROVIDER_SETTING);
        const now = raw === undefined ? undefined : ZProviderSelection.parse(JSON.parse(raw));
        if (now?.selectionId !== selectionId) return;
        await repository.set(STORAGE_PROVIDER_SETTING, JSON.stringify({ ...now, previous: null }));
        await repository.set(
          STORAGE_MOVE_SETTING,
          JSON.stringify({
            ...started,
            state: 'done',
            total: Math.max(total, moved),
            moved,
            lastError: null,
            finishedAt: new Date().toISOString(),
          }),
        );
      });
      storage.invalidate();
      log.info(`storage move: ${moved} objects moved from ${started.from} to ${started.to}`);
    },
    async givenUp({ selectionId }, reason) {
      const selection = await storage.selection();
      if (!selection?.previous || selection.selectionId !== selectionId) return; // finished or superseded
      const move = await readMove();
      if (move?.state !== 'running') return;
      await writeMove({ ...move, state: 'failed', lastError: move.lastError ?? reason, finishedAt: new Date().toISOString() });
    },
  };
}
