import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';
const hash = 'varchar(64)';

/**
 * Traceability (docs/traceability.md): the events machines report, each stored once by its
 * `eventId`, with the proof it arrived with; and the head of each machine's hash chain, the row
 * that serialises the events of one machine.
 */
export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema
    .createTable('trace_events')
    .addColumn('event_id', uuid, (c) => c.primaryKey())
    .addColumn('device_id', uuid, (c) => c.notNull())
    /** Position in the machine's history as received: 1, 2, 3, … */
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('occurred_at', 'varchar(40)', (c) => c.notNull())
    .addColumn('authorization_id', uuid)
    .addColumn('order_id', uuid)
    .addColumn('dsi_id', uuid)
    .addColumn('job_id', 'varchar(128)')
    .addColumn('quantity', 'integer')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('previous_hash', hash)
    .addColumn('event_hash', hash, (c) => c.notNull())
    /** `gap` or `fork` when the event did not continue the machine's chain; null when it did. */
    .addColumn('chain_finding', 'varchar(8)')
    /** `stp`, `xml` or `upload` (the route it came by). */
    .addColumn('source', 'varchar(8)', (c) => c.notNull())
    .addColumn('proof', 'text', (c) => c.notNull())
    .addColumn('received_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('trace_events_device_sequence_idx')
    .on('trace_events')
    .columns(['device_id', 'sequence'])
    .unique()
    .execute();
  await db.schema.createIndex('trace_events_device_hash_idx').on('trace_events').columns(['device_id', 'event_hash']).execute();
  await db.schema.createIndex('trace_events_received_idx').on('trace_events').columns(['received_at', 'event_id']).execute();
  await db.schema
    .createIndex('trace_events_dsi_received_idx')
    .on('trace_events')
    .columns(['dsi_id', 'received_at', 'event_id'])
    .execute();
  await db.schema
    .createIndex('trace_events_authorization_idx')
    .on('trace_events')
    .columns(['authorization_id', 'job_id'])
    .execute();

  await db.schema
    .createTable('trace_chains')
    .addColumn('device_id', uuid, (c) => c.primaryKey())
    .addColumn('length', 'integer', (c) => c.notNull())
    .addColumn('head_hash', hash)
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('trace_chains').ifExists().execute();
  await db.schema.dropTable('trace_events').ifExists().execute();
}
