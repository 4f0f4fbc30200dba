import { randomUUID } from 'node:crypto';
import type { OrderValues } from '../../src/db/schema-licensing.js';

/**
 * The columns of an order row as a local order made in the console leaves them when it sets no
 * expiration, serial numbers, device or upstream: shared by the rows tests and benchmarks build.
 */
export const plainOrderColumns = {
  upstream_authorization_id: null,
  version: 1,
  source_date_created: null,
  source: 'ui',
  allocated: 0,
  expired_quantity: 0,
  expires_at: null,
  purpose: null,
  das_url: null,
  image_url: null,
  file_information_block_element_size: null,
  public_key_sn: null,
  key_role_sn: null,
  device_identity: null,
  parameter_version: null,
  breakage_value: null,
  serial_type: null,
  serial_prefix: null,
  serial_start: null,
  serial_end: null,
  serial_next: null,
  downstream_device: 0,
  revoked: 0,
  revoked_at: null,
  replaces_order_id: null,
  sender_fingerprint: null,
  policy: '{}',
} satisfies Partial<OrderValues>;

/** One row of the orders a benchmark or a paging test seeds: order `i`, of one of `dsiIds`, spread over companies and users. */
export function seededOrderRow(
  i: number,
  dsiIds: string[],
  base: number,
  spread: { companies: number; users: number },
): OrderValues {
  const { companies, users } = spread;
  const created = new Date(base + i * 1000 + (i % 7) * 13).toISOString();
  return {
    ...plainOrderColumns,
    id: randomUUID(),
    order_number: `SEED-${i}`,
    dedupe_key: `seed|SEED-${i}`,
    company_name: `Company ${String(i % companies).padStart(3, '0')}`,
    source_company_name: 'Seed',
    manage_user_id: null,
    user_id: `user${i % users}`,
    dsi_id: dsiIds[i % dsiIds.length]!,
    revision_id: dsiIds[i % dsiIds.length]!,
    dsi_version: 1,
    design_name: 'Seeded design',
    digest_value: '0'.repeat(64),
    quantity: 100,
    licensee_key_sn: 'seed',
    device_parameters: '[]',
    quality_parameters: '[]',
    breakage_policy: 'Strict',
    authorized_users: '[]',
    archived: i % 10 === 0 ? 1 : 0,
    created_at: created,
    updated_at: created,
  };
}
