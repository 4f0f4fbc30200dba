import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * Machines reported to Trace instances (docs/traceability.md, "Machines and batches on the Trace
 * side"). On the reporting side, `trace_reported_devices` records which approved machine was
 * reported to which Trace registration (one `device` outbox message each). On the Trace side,
 * `peer_devices` keeps a machine a reporting Manage instance approved: its identity and signing
 * certificate, so a forwarded history can be exported and checked offline. An `eventBatch`
 * message's subject is a batch id (64 hex digits), so `outbox.subject_id` widens from a UUID's 36.
 * `outbox.ordering_key`: messages to one target with the same key go one at a time, in order (a
 * machine's messages to a Trace instance).
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await setSubjectWidth(db, kind, 64);
  await db.schema.alterTable('outbox').addColumn('ordering_key', 'varchar(64)').execute();
  await db.schema.createIndex('outbox_ordering_idx').on('outbox').columns(['ordering_key', 'target_id', 'state', 'id']).execute();
  await db.schema
    .createTable('trace_reported_devices')
    .addColumn('target_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('device_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('reported_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('trace_reported_devices_pk', ['target_id', 'device_id'])
    .execute();
  await db.schema
    .createTable('peer_devices')
    .addColumn('device_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('manage_id', 'varchar(36)', (c) => c.notNull())
    /** JSON: {name, serialNumber, model, manufacturer} as the reporting instance holds them. */
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('signing_certificate', 'text', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'outbox_ordering_idx', 'outbox');
  await db.schema.alterTable('outbox').dropColumn('ordering_key').execute();
  await db.schema.dropTable('peer_devices').ifExists().execute();
  await db.schema.dropTable('trace_reported_devices').ifExists().execute();
  // back to a UUID's length: refused while a batch's message (a 64-digit subject) is in the outbox
  await setSubjectWidth(db, kind, 36);
}

async function setSubjectWidth(db: Kysely<unknown>, kind: DatabaseKind, width: number): Promise<void> {
  if (kind === 'postgres') {
    await db.schema
      .alterTable('outbox')
      .alterColumn('subject_id', (c) => c.setDataType(`varchar(${width})`))
      .execute();
  } else if (kind === 'mysql') {
    await db.schema
      .alterTable('outbox')
      .modifyColumn('subject_id', `varchar(${width})`, (c) => c.notNull())
      .execute();
  } // SQLite does not hold a varchar to its length
}
