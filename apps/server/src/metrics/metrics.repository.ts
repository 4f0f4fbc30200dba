import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export interface QueueFigures {
  /** Unfinished rows by kind (outbox: target kind; jobs: job kind) and state; finished ones are not counted. */
  counts: { kind: string; state: string; count: number }[];
  /** Creation time of the oldest row still waiting (outbox `pending`, jobs `pending` or `running`), or null. */
  oldestWaiting: string | null;
}

/** What `/metrics` reads from the database when it is scraped: two small queries per queue, on unfinished rows only. */
export class MetricsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async outbox(): Promise<QueueFigures> {
    const counts = await this.db
      .selectFrom('outbox')
      .select(['target_kind as kind', 'state', sql<number>`count(*)`.as('count')])
      .where('state', '=', 'pending')
      .groupBy(['target_kind', 'state'])
      .execute();
    const oldest = await this.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return { counts: counts.map((row) => ({ ...row, count: Number(row.count) })), oldestWaiting: oldest?.oldest ?? null };
  }

  async jobs(): Promise<QueueFigures> {
    const counts = await this.db
      .selectFrom('jobs')
      .select(['kind', 'state', sql<number>`count(*)`.as('count')])
      .where('state', 'in', ['pending', 'running', 'failed'])
      .groupBy(['kind', 'state'])
      .execute();
    const oldest = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('oldest'))
      .where('state', 'in', ['pending', 'running'])
      .where('run_at', '<=', new Date().toISOString())
      .executeTakeFirst();
    return { counts: counts.map((row) => ({ ...row, count: Number(row.count) })), oldestWaiting: oldest?.oldest ?? null };
  }
}
