import type { Kysely } from 'kysely';

/**
 * Designs between instances (docs/peer-network.md#designs-between-instances): a revision received
 * from a peer or a Protect keeps the certificate its manifest was signed with
 * (`signer_certificate`, PEM chain; null for revisions built here, signed by this instance's own
 * key), so it can be handed on with a signature others can check. `fss_upload_tokens` holds the
 * one-time tokens a Protect gets from `/fss/getUploadToken` to publish a design at `/mpf/design`
 * (stored as their SHA-256).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('package_revisions').addColumn('signer_certificate', 'text').execute();
  await db.schema
    .createTable('fss_upload_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('protect_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('fss_upload_tokens').ifExists().execute();
  await db.schema.alterTable('package_revisions').dropColumn('signer_certificate').execute();
}
