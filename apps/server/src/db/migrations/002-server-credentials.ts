import type { Kysely } from 'kysely';

const time = 'varchar(32)';
const name = 'varchar(1024)';
const fingerprint = 'varchar(100)';

/**
 * The server's own keys and certificates. Private keys are stored sealed (AES-256-GCM under the
 * key-encryption key, never in clear); certificates and public keys are PEM text. One row per
 * purpose in `server_key_pairs` and `server_certificates`: installing replaces.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_key_pairs')
    .addColumn('purpose', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('key_type', 'varchar(8)', (c) => c.notNull())
    .addColumn('public_key_pem', 'text', (c) => c.notNull())
    .addColumn('sealed_private_key', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('server_certificates')
    .addColumn('purpose', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('subject', name, (c) => c.notNull())
    .addColumn('issuer', name, (c) => c.notNull())
    .addColumn('serial_number', 'varchar(128)', (c) => c.notNull())
    .addColumn('not_before', time, (c) => c.notNull())
    .addColumn('not_after', time, (c) => c.notNull())
    .addColumn('fingerprint_sha256', fingerprint, (c) => c.notNull())
    .addColumn('trust_anchor_fingerprint', fingerprint, (c) => c.notNull())
    .addColumn('development', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('installed_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('trust_anchors')
    .addColumn('fingerprint_sha256', fingerprint, (c) => c.primaryKey())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('subject', name, (c) => c.notNull())
    .addColumn('not_after', time, (c) => c.notNull())
    .addColumn('development', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  // DEVELOPMENT ONLY: the local network CA of DEVELOPMENT_CA=true (demos and tests).
  await db.schema
    .createTable('development_ca')
    .addColumn('id', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('key_type', 'varchar(8)', (c) => c.notNull())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('sealed_private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['development_ca', 'trust_anchors', 'server_certificates', 'server_key_pairs']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
