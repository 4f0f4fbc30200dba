import type { DatabaseKind } from '../config.js';
import { mergeEndedShards } from '../db/anchored-paging.js';
import type { Database } from '../db/database.js';
import type { BackgroundWorker, JobLog } from './job-runner.js';

/** How often each server process moves the list counts of ended connections into shard 0. */
export const LIST_SHARDS_MERGE_MS = 60_000;

/**
 * Keeps each list count a sum of few rows (migration 033): every database connection that writes
 * a listed table keeps its own shard of the counts it changes, and the shards of connections that
 * have ended (a pool closing idle connections, a restarted process) are merged into shard 0 here.
 * Every process with a started runner does it; merges that meet move disjoint rows.
 */
export class ListShardMerger implements BackgroundWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = true;
  private readonly kind: DatabaseKind;

  constructor(
    private readonly database: Pick<Database, 'db' | 'dialect'>,
    private readonly log: JobLog,
    private readonly intervalMs = LIST_SHARDS_MERGE_MS,
  ) {
    this.kind = database.dialect.kind;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Merges now; answers 1 when there were ended shards to merge. */
  async runDue(): Promise<number> {
    return (await this.merge()) > 0 ? 1 : 0;
  }

  private schedule(): void {
    if (this.stopped || this.kind === 'sqlite') return;
    this.timer = setTimeout(() => {
      void this.merge().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  private merge(): Promise<number> {
    this.running = mergeEndedShards(this.database.db, this.kind).catch((error: unknown) => {
      this.log.error(
        `list counts: merging ended connections' shards failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 0;
    });
    return this.running;
  }
}
