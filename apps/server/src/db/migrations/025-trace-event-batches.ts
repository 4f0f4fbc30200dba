import { type Kysely, sql } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * Batch-signed events (docs/traceability.md, "Batch-signed events"): the STP envelope a machine
 * signed over a whole batch, stored once; each event of it keeps `{format: "stp-batch", batch,
 * index}` as its proof. `batch_id` is the SHA-256 (hex) of the envelope's signature, so the same
 * envelope (a history uploaded again) is one row.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('trace_event_batches')
    .addColumn('batch_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('device_id', 'varchar(36)', (c) => c.notNull())
    /** The envelope as received (JSON): up to 1,000 events, so more than MariaDB's 64 KiB `text`. */
    .addColumn('envelope', kind === 'mysql' ? sql`longtext` : 'text', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('trace_event_batches').ifExists().execute();
}
