import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * The outbox delivered (docs/peer-network.md#the-outbox): every message gets a `message_id` the
 * receiver uses to apply it once, `delivered_at`, and `expires_at` after which delivery is given
 * up (forwarded events: the event configuration's timeout). `peer_messages` records on the
 * receiving side which message ids of which peer were applied.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  // a forwarded event carries the machine's signed document (up to 256 KiB): more than MariaDB's TEXT
  if (kind === 'mysql') await sql`alter table outbox modify payload mediumtext not null`.execute(db);
  await db.schema.alterTable('outbox').addColumn('message_id', 'varchar(36)').execute();
  await db.schema.alterTable('outbox').addColumn('delivered_at', 'varchar(32)').execute();
  await db.schema.alterTable('outbox').addColumn('expires_at', 'varchar(32)').execute();
  const existing = await sql<{ id: number }>`select id from outbox`.execute(db);
  for (const row of existing.rows) await sql`update outbox set message_id = ${randomUUID()} where id = ${row.id}`.execute(db);
  await db.schema.createIndex('outbox_message_idx').on('outbox').column('message_id').unique().execute();
  await db.schema.createIndex('outbox_created_idx').on('outbox').columns(['created_at', 'id']).execute();
  await db.schema
    .createTable('peer_messages')
    .addColumn('registration_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('message_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('peer_messages_pk', ['registration_id', 'message_id'])
    .execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema.dropTable('peer_messages').ifExists().execute();
  await dropIndexIfExists(db, kind, 'outbox_created_idx', 'outbox');
  await dropIndexIfExists(db, kind, 'outbox_message_idx', 'outbox');
  for (const column of ['expires_at', 'delivered_at', 'message_id'])
    await db.schema.alterTable('outbox').dropColumn(column).execute();
  // refused while a payload longer than TEXT's 64 KiB is in the outbox
  if (kind === 'mysql') await sql`alter table outbox modify payload text not null`.execute(db);
}
