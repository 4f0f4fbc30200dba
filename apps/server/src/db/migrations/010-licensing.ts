import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists, withIdColumn } from '../dialect.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';

/**
 * Orders, their authorizations, the Manage instances they may go to, trusted order senders, the
 * outbox towards downstream instances, machine pull nonces and upload tokens, and machine data
 * licences. Quantities and serial numbers only change through single conditional UPDATEs (see
 * the licensing repository).
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';

  await db.schema
    .createTable('orders')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('order_number', 'varchar(128)', (c) => c.notNull())
    /** `<source company, lower case>|<orderNumber>` (plus `|r:<id>` for a replacement): one live order each. */
    .addColumn('dedupe_key', 'varchar(512)', (c) => c.notNull().unique())
    .addColumn('upstream_authorization_id', 'varchar(64)')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('company_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('source_company_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('source_date_created', time)
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('manage_user_id', 'integer')
    .addColumn('user_id', 'varchar(160)', (c) => c.notNull())
    .addColumn('dsi_id', uuid, (c) => c.notNull())
    .addColumn('revision_id', uuid, (c) => c.notNull())
    .addColumn('dsi_version', 'integer', (c) => c.notNull())
    .addColumn('design_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('digest_value', 'varchar(64)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('allocated', 'integer', (c) => c.notNull())
    .addColumn('expired_quantity', 'integer', (c) => c.notNull())
    .addColumn('expires_at', time)
    .addColumn('purpose', 'varchar(1024)')
    .addColumn('das_url', 'varchar(2048)')
    .addColumn('image_url', 'varchar(2048)')
    .addColumn('file_information_block_element_size', 'integer')
    .addColumn('licensee_key_sn', 'varchar(128)', (c) => c.notNull())
    .addColumn('public_key_sn', 'varchar(128)')
    .addColumn('key_role_sn', 'varchar(128)')
    .addColumn('device_identity', 'text')
    .addColumn('parameter_version', 'varchar(64)')
    .addColumn('device_parameters', 'text', (c) => c.notNull())
    .addColumn('quality_parameters', 'text', (c) => c.notNull())
    .addColumn('breakage_policy', 'varchar(16)', (c) => c.notNull())
    .addColumn('breakage_value', 'double precision')
    .addColumn('serial_type', 'varchar(8)')
    .addColumn('serial_prefix', 'varchar(64)')
    .addColumn('serial_start', bigint)
    .addColumn('serial_end', bigint)
    .addColumn('serial_next', bigint)
    .addColumn('authorized_users', 'text', (c) => c.notNull())
    .addColumn('downstream_device', 'integer', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', time)
    .addColumn('replaces_order_id', uuid)
    .addColumn('sender_fingerprint', 'varchar(128)')
    /** The policy list as received (canonical JSON). */
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  // order/list: every sort (orderId = id, userId, companyName, dateCreated) under the archived
  // switch, and each filter with the default sort and with dateCreated; `id` last so every
  // order is total and an index-only scan can page.
  const orderIndexes: [string, string[]][] = [
    ['orders_archived_id_idx', ['archived', 'id']],
    ['orders_archived_user_idx', ['archived', 'user_id', 'id']],
    ['orders_archived_company_idx', ['archived', 'company_name', 'id']],
    ['orders_archived_created_idx', ['archived', 'created_at', 'id']],
    ['orders_archived_dsi_idx', ['archived', 'dsi_id', 'id']],
    ['orders_archived_dsi_created_idx', ['archived', 'dsi_id', 'created_at', 'id']],
    ['orders_archived_company_created_idx', ['archived', 'company_name', 'created_at', 'id']],
    ['orders_archived_user_created_idx', ['archived', 'user_id', 'created_at', 'id']],
    ['orders_number_idx', ['order_number']],
  ];
  for (const [name, columns] of orderIndexes) await db.schema.createIndex(name).on('orders').columns(columns).execute();

  await db.schema
    .createTable('order_groups')
    .addColumn('order_id', uuid, (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('user_groups.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('order_groups_pk', ['order_id', 'group_id'])
    .execute();
  await db.schema.createIndex('order_groups_group_idx').on('order_groups').columns(['group_id', 'order_id']).execute();

  /**
   * Other Manage instances (spec §3 Manage registration entry). Filled by peer registration
   * (issue "peers"); authorizations may go to an Approved `downStreamManage` one.
   */
  await db.schema
    .createTable('manage_instances')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('manage_site_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('manage_url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('manage_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('registration_state', 'varchar(16)', (c) => c.notNull())
    .addColumn('initiator', 'integer', (c) => c.notNull())
    .addColumn('signing_certificate', 'text')
    .addColumn('encryption_certificate', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('authorizations')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('order_id', uuid, (c) => c.notNull().references('orders.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('target_kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('device_id', uuid)
    .addColumn('manage_id', uuid)
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('expires_at', time)
    .addColumn('serial_first', bigint)
    .addColumn('serial_last', bigint)
    .addColumn('authorized_users', 'text', (c) => c.notNull())
    .addColumn('tracking', 'text', (c) => c.notNull())
    .addColumn('device_parameters', 'text', (c) => c.notNull())
    .addColumn('quality_parameters', 'text', (c) => c.notNull())
    /** Copied from the order for the list's filters and sorts. */
    .addColumn('dsi_id', uuid, (c) => c.notNull())
    .addColumn('company_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(160)', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull())
    /** A downstream Manage instance's machine it was assigned to, as that instance reports it. */
    .addColumn('downstream_device_id', 'varchar(128)')
    .addColumn('created_by', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('sent_at', time)
    .addColumn('received_at', time)
    .addColumn('revoked_at', time)
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  const authorizationIndexes: [string, string[]][] = [
    ['authorizations_order_idx', ['order_id', 'id']],
    ['authorizations_archived_id_idx', ['archived', 'order_id', 'id']],
    ['authorizations_archived_user_idx', ['archived', 'user_id', 'id']],
    ['authorizations_archived_company_idx', ['archived', 'company_name', 'id']],
    ['authorizations_archived_created_idx', ['archived', 'created_at', 'id']],
    ['authorizations_device_idx', ['device_id', 'state', 'created_at']],
    ['authorizations_state_idx', ['target_kind', 'state', 'sent_at']],
  ];
  for (const [name, columns] of authorizationIndexes)
    await db.schema.createIndex(name).on('authorizations').columns(columns).execute();

  await db.schema
    .createTable('order_senders')
    .addColumn('fingerprint', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('subject', 'varchar(1024)', (c) => c.notNull())
    .addColumn('serial_number', 'varchar(128)', (c) => c.notNull())
    .addColumn('not_after', time, (c) => c.notNull())
    .addColumn('created_by', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  /** Messages to peers, delivered and retried with back-off by the peer client (issue "peers"). */
  await withIdColumn(kind, db.schema.createTable('outbox'))
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('target_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('target_id', uuid, (c) => c.notNull())
    .addColumn('subject_id', uuid, (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', time, (c) => c.notNull())
    .addColumn('last_error', 'varchar(2048)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_due_idx').on('outbox').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbox_subject_idx').on('outbox').columns(['subject_id', 'kind']).execute();

  await db.schema
    .createTable('stp_nonces')
    .addColumn('device_id', uuid, (c) => c.notNull())
    .addColumn('nonce', 'varchar(128)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addPrimaryKeyConstraint('stp_nonces_pk', ['device_id', 'nonce'])
    .execute();
  await db.schema.createIndex('stp_nonces_created_idx').on('stp_nonces').columns(['device_id', 'created_at']).execute();

  await db.schema
    .createTable('upload_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('device_id', uuid, (c) => c.notNull())
    .addColumn('authorization_id', uuid)
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('used_at', time)
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  /** Machine data licences (spec §3): data a machine uploaded, stored like a design file. */
  await db.schema
    .createTable('dtls')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('device_id', uuid, (c) => c.notNull())
    .addColumn('authorization_id', uuid)
    .addColumn('order_id', uuid)
    .addColumn('dsi_id', uuid)
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('manage_id', uuid)
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dtls_created_idx').on('dtls').columns(['created_at', 'id']).execute();

  // an order's history (order/fetch) reads the audit records of the order and its authorizations
  await db.schema.createIndex('audit_events_subject_idx').on('audit_events').columns(['subject', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'audit_events_subject_idx', 'audit_events');
  for (const table of [
    'dtls',
    'upload_tokens',
    'stp_nonces',
    'outbox',
    'order_senders',
    'authorizations',
    'manage_instances',
    'order_groups',
    'orders',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
