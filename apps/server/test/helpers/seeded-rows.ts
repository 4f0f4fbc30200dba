import { createHash, randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { TAuditEventType } from '@manifold/contract';
import type { AuditEventsTable } from '../../src/db/schema.js';
import type { AuthorizationValues } from '../../src/db/schema-licensing.js';
import type { BuildsTable, PartsTable, TraceEventsTable } from '../../src/db/schema-trace.js';

// Rows that paging tests and list benchmarks write straight into the tables (orders: seeded-orders.ts):
// row `i` of a list, its filter values spread so that one value holds a known share of the rows,
// its time `base + i` seconds (so newest first is highest `i` first).

/** Row `i`'s time: `base` plus `i` seconds. */
function at(base: number, i: number): string {
  return new Date(base + i * 1000).toISOString();
}

/** Authorization `i` of `order`: one in five archived, three companies, four users. */
export function seededAuthorizationRow(order: { id: string; dsi_id: string }, i: number, base: number): AuthorizationValues {
  const time = at(base, i);
  return {
    id: randomUUID(),
    order_id: order.id,
    version: 1,
    target_kind: 'device',
    device_id: randomUUID(),
    manage_id: null,
    quantity: 1,
    state: 'authorized',
    expires_at: null,
    serial_first: null,
    serial_last: null,
    authorized_users: '[]',
    tracking: '[]',
    device_parameters: '[]',
    quality_parameters: '[]',
    dsi_id: order.dsi_id,
    company_name: `Company ${i % 3}`,
    user_id: `user${i % 4}`,
    archived: i % 5 === 0 ? 1 : 0,
    downstream_device_id: null,
    created_by: 'seed',
    created_at: time,
    sent_at: null,
    received_at: null,
    revoked_at: null,
    updated_at: time,
  };
}

export const seededAuditKinds = [
  'licenceReceived',
  'licenceAuthorized',
  'licenceRevoked',
  'userAdded',
  'groupAdded',
] as const satisfies readonly TAuditEventType[];

/** Audit record `i`: one of 5 kinds, 4 actors (one in four the system's), 7 subjects. */
export function seededAuditRow(i: number, base: number): Insertable<AuditEventsTable> {
  return {
    event_type: seededAuditKinds[i % seededAuditKinds.length]!,
    actor: i % 4 === 0 ? null : `user${i % 4}`,
    subject: `subject-${i % 7}`,
    details: null,
    source_ip: '127.0.0.1',
    created_at: at(base, i),
  };
}

/** Event `i` of one of `machines` (its chain in order) about one of `designs`. */
export function seededTraceEventRow(
  i: number,
  base: number,
  machines: string[],
  designs: string[],
): Insertable<TraceEventsTable> {
  const time = at(base, i);
  return {
    event_id: randomUUID(),
    device_id: machines[i % machines.length]!,
    sequence: Math.floor(i / machines.length) + 1,
    kind: 'machineIdle',
    occurred_at: time,
    authorization_id: null,
    order_id: null,
    dsi_id: designs[i % designs.length]!,
    job_id: null,
    quantity: null,
    data: '{}',
    previous_hash: null,
    event_hash: createHash('sha256').update(`${i}|${time}`).digest('hex'),
    chain_finding: null,
    source: 'stp',
    proof: '{}',
    received_at: time,
  };
}

/** Build `i`: a job of one of `orders`' designs on `device`, ended. */
export function seededBuildRow(i: number, base: number, order: { id: string; dsi_id: string }, device: string): BuildsTable {
  const time = at(base, i);
  return {
    id: randomUUID(),
    device_id: device,
    authorization_id: order.id,
    order_id: order.id,
    dsi_id: order.dsi_id,
    job_id: `job-${i}`,
    state: 'ended',
    quantity: 1,
    started_at: time,
    finished_at: time,
    created_at: time,
    updated_at: time,
  };
}

/** Part `i` of `build`, made and not inspected, with serial number `P-i`. */
export function seededPartRow(i: number, base: number, build: BuildsTable): PartsTable {
  return {
    id: randomUUID(),
    build_id: build.id,
    device_id: build.device_id,
    authorization_id: build.authorization_id,
    order_id: build.order_id,
    dsi_id: build.dsi_id,
    serial_number: `P-${i}`,
    qms_state: 'MANUFACTURED',
    counted: 0,
    event_id: randomUUID(),
    revoked: 0,
    created_at: at(base, i),
    inspection_id: null,
    inspection_result: null,
    inspected_at: null,
    technician: null,
    failure_reason: null,
  };
}
