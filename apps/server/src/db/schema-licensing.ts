import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Tables of orders, authorizations and machine pulls (migration 010). `bigint` columns may come
 * back as strings from PostgreSQL and MySQL: read them with `Number()`.
 */
type BigNumber = ColumnType<number | string, number, number>;
type NullableBigNumber = ColumnType<number | string | null, number | null, number | null>;

export interface OrdersTable {
  id: string;
  order_number: string;
  dedupe_key: string;
  upstream_authorization_id: string | null;
  version: number;
  company_name: string;
  source_company_name: string;
  source_date_created: string | null;
  /** `upstream`: an authorization an upstream Manage instance delivered (docs/peer-network.md#the-licence-chain). */
  source: 'ui' | 'upload' | 'partner' | 'upstream' | 'protect';
  manage_user_id: number | null;
  user_id: string;
  dsi_id: string;
  revision_id: string;
  dsi_version: number;
  design_name: string;
  digest_value: string;
  quantity: number;
  /** Quantity held by authorizations that are not revoked. */
  allocated: number;
  expired_quantity: number;
  expires_at: string | null;
  purpose: string | null;
  das_url: string | null;
  image_url: string | null;
  file_information_block_element_size: number | null;
  licensee_key_sn: string;
  public_key_sn: string | null;
  key_role_sn: string | null;
  device_identity: string | null;
  parameter_version: string | null;
  device_parameters: string;
  quality_parameters: string;
  breakage_policy: string;
  breakage_value: number | null;
  serial_type: string | null;
  serial_prefix: string | null;
  serial_start: NullableBigNumber;
  serial_end: NullableBigNumber;
  serial_next: NullableBigNumber;
  authorized_users: string;
  downstream_device: number;
  archived: number;
  revoked: number;
  revoked_at: string | null;
  replaces_order_id: string | null;
  sender_fingerprint: string | null;
  policy: string;
  created_at: string;
  updated_at: string;
}

export interface OrderGroupsTable {
  order_id: string;
  group_id: number;
}

export interface ManageInstancesTable {
  id: string;
  manage_site_name: string;
  manage_url: string;
  /** `upStreamManage` or `downStreamManage` (spec §3 manage instance types). */
  manage_type: string;
  registration_state: string;
  initiator: number;
  signing_certificate: string | null;
  encryption_certificate: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  /** Shared by both sides of a registration (migration 014); null on rows made before it. */
  registration_nonce: string | null;
  /** SHA-256 fingerprint of the peer's signing certificate (migration 014). */
  signing_fingerprint: string | null;
}

export interface AuthorizationsTable {
  id: string;
  order_id: string;
  version: number;
  target_kind: 'device' | 'manage';
  device_id: string | null;
  manage_id: string | null;
  quantity: number;
  state: 'authorized' | 'sent' | 'received' | 'revoked';
  expires_at: string | null;
  serial_first: NullableBigNumber;
  serial_last: NullableBigNumber;
  authorized_users: string;
  tracking: string;
  device_parameters: string;
  quality_parameters: string;
  dsi_id: string;
  company_name: string;
  user_id: string;
  archived: number;
  downstream_device_id: string | null;
  created_by: string;
  created_at: string;
  sent_at: string | null;
  received_at: string | null;
  revoked_at: string | null;
  updated_at: string;
}

export interface OrderSendersTable {
  fingerprint: string;
  name: string;
  certificate_pem: string;
  subject: string;
  serial_number: string;
  not_after: string;
  created_by: string;
  created_at: string;
}

export interface OutboxTable {
  id: Generated<number>;
  kind: string;
  target_kind: string;
  target_id: string;
  subject_id: string;
  payload: string;
  /** `pending` (waiting for delivery or a retry), `delivered`, `cancelled`, `failed` (given up). */
  state: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The id the receiver applies the message once by (migration 015). */
  message_id: string | null;
  delivered_at: string | null;
  /** Delivery is given up after this time (null: after the attempts run out). */
  expires_at: string | null;
  /** The delivery worker attempting it now, and until when (migration 024). */
  lease_owner: string | null;
  lease_until: string | null;
  /**
   * Messages to one target with the same key are delivered one at a time, in id order (a
   * machine's id for what goes to a Trace instance: its events arrive as they were chained);
   * null: no order (migration 031).
   */
  ordering_key: string | null;
}

export interface StpNoncesTable {
  device_id: string;
  nonce: string;
  created_at: string;
}

export interface UploadTokensTable {
  token_hash: string;
  device_id: string;
  authorization_id: string | null;
  purpose: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface DtlsTable {
  id: string;
  device_id: string;
  authorization_id: string | null;
  order_id: string | null;
  dsi_id: string | null;
  file_name: string;
  size: BigNumber;
  sha256: string;
  storage_key: string;
  manage_id: string | null;
  created_at: string;
}

export interface LicensingTables {
  orders: OrdersTable;
  order_groups: OrderGroupsTable;
  manage_instances: ManageInstancesTable;
  authorizations: AuthorizationsTable;
  order_senders: OrderSendersTable;
  outbox: OutboxTable;
  stp_nonces: StpNoncesTable;
  upload_tokens: UploadTokensTable;
  dtls: DtlsTable;
}

export type OrderRow = Selectable<OrdersTable>;
export type AuthorizationRow = Selectable<AuthorizationsTable>;
export type ManageInstanceRow = Selectable<ManageInstancesTable>;
export type OrderSenderRow = Selectable<OrderSendersTable>;
export type DtlRow = Selectable<DtlsTable>;
/** An order row as written (numbers, not driver strings). */
export type OrderValues = Omit<OrderRow, 'serial_start' | 'serial_end' | 'serial_next'> & {
  serial_start: number | null;
  serial_end: number | null;
  serial_next: number | null;
};
export type AuthorizationValues = Omit<AuthorizationRow, 'serial_first' | 'serial_last'> & {
  serial_first: number | null;
  serial_last: number | null;
};
