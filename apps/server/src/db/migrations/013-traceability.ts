import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';
const hash = 'varchar(64)';

/**
 * Traceability (docs/traceability.md): the events machines report, each stored once by its
 * `eventId`, with the proof it arrived with; the head of each machine's hash chain, the row
 * that serialises the events of one machine; the builds (jobs) and parts the job events make.
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

  /** The breakage allowance each order has used (docs/breakage-policy.md); changed under the order's row lock. */
  await db.schema
    .createTable('order_breakage')
    .addColumn('order_id', uuid, (c) => c.primaryKey())
    .addColumn('given_back', 'integer', (c) => c.notNull())
    .execute();

  /** A build: the parts of one job of a machine under one authorization (spec §7 build/list). */
  await db.schema
    .createTable('builds')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('device_id', uuid, (c) => c.notNull())
    .addColumn('authorization_id', uuid, (c) => c.notNull())
    .addColumn('order_id', uuid, (c) => c.notNull())
    .addColumn('dsi_id', uuid, (c) => c.notNull())
    .addColumn('job_id', 'varchar(128)', (c) => c.notNull())
    /** `started`, `paused`, `ended`, `failed`, `cancelled`. */
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'varchar(40)')
    .addColumn('finished_at', 'varchar(40)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('builds_job_idx')
    .on('builds')
    .columns(['authorization_id', 'device_id', 'job_id'])
    .unique()
    .execute();
  await db.schema.createIndex('builds_created_idx').on('builds').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('builds_dsi_created_idx').on('builds').columns(['dsi_id', 'created_at', 'id']).execute();

  /** Parts (spec §3 Part): made, failed or cancelled in a build. */
  await db.schema
    .createTable('parts')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('build_id', uuid, (c) => c.notNull().references('builds.id'))
    .addColumn('device_id', uuid, (c) => c.notNull())
    .addColumn('authorization_id', uuid, (c) => c.notNull())
    .addColumn('order_id', uuid, (c) => c.notNull())
    .addColumn('dsi_id', uuid, (c) => c.notNull())
    .addColumn('serial_number', 'varchar(200)')
    /** `NO_QMS_STEP`, `MANUFACTURED`, `CANCELED`, `FAILURE`. */
    .addColumn('qms_state', 'varchar(16)', (c) => c.notNull())
    /** A failed or cancelled part that counted against the licence (1) or was given back (0). */
    .addColumn('counted', 'integer', (c) => c.notNull())
    .addColumn('event_id', uuid, (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('parts_build_idx').on('parts').columns(['build_id']).execute();
  await db.schema.createIndex('parts_authorization_idx').on('parts').columns(['authorization_id', 'qms_state']).execute();
  await db.schema.createIndex('parts_order_idx').on('parts').columns(['order_id', 'qms_state', 'counted']).execute();
  await db.schema.createIndex('parts_created_idx').on('parts').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('parts_dsi_created_idx').on('parts').columns(['dsi_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('parts_serial_idx').on('parts').columns(['serial_number']).execute();

  // audit/list pages newest first: overall, by kind and by subject have their indexes (001, 010)
  await db.schema.createIndex('audit_events_actor_idx').on('audit_events').columns(['actor', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'audit_events_actor_idx', 'audit_events');
  await db.schema.dropTable('parts').ifExists().execute();
  await db.schema.dropTable('builds').ifExists().execute();
  await db.schema.dropTable('order_breakage').ifExists().execute();
  await db.schema.dropTable('trace_chains').ifExists().execute();
  await db.schema.dropTable('trace_events').ifExists().execute();
}
