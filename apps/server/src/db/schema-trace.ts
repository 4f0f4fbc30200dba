import type { Selectable } from 'kysely';

/** Tables of traceability (migration 013). */
export interface TraceEventsTable {
  event_id: string;
  device_id: string;
  sequence: number;
  kind: string;
  occurred_at: string;
  authorization_id: string | null;
  order_id: string | null;
  dsi_id: string | null;
  job_id: string | null;
  quantity: number | null;
  /** JSON object of strings. */
  data: string;
  previous_hash: string | null;
  event_hash: string;
  chain_finding: 'gap' | 'fork' | null;
  /** `peer`: forwarded by a Manage instance that reports to this Trace (its outbox); `server`: this server's own chain. */
  source: 'stp' | 'xml' | 'upload' | 'peer' | 'server';
  /** JSON of the contract's `TStoredTraceEventProof`. */
  proof: string;
  received_at: string;
}

export interface TraceChainsTable {
  device_id: string;
  length: number;
  head_hash: string | null;
  updated_at: string;
}

export type BuildState = 'started' | 'paused' | 'ended' | 'failed' | 'cancelled';

export interface BuildsTable {
  id: string;
  device_id: string;
  authorization_id: string;
  order_id: string;
  dsi_id: string;
  job_id: string;
  state: BuildState;
  quantity: number;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PartsTable {
  id: string;
  build_id: string;
  device_id: string;
  authorization_id: string;
  order_id: string;
  dsi_id: string;
  serial_number: string | null;
  qms_state: 'NO_QMS_STEP' | 'MANUFACTURED' | 'CANCELED' | 'FAILURE';
  counted: number;
  event_id: string;
  revoked: number;
  created_at: string;
  /** The part's latest inspection (migration 019, docs/quality.md); null until inspected. */
  inspection_id: string | null;
  inspection_result: 'passed' | 'failed' | null;
  inspected_at: string | null;
  technician: string | null;
  failure_reason: string | null;
}

export interface OrderBreakageTable {
  order_id: string;
  given_back: number;
}

/** A batch-signed envelope (migration 025), stored once for the events that name it. */
export interface TraceEventBatchesTable {
  /** SHA-256 (hex) of the envelope's signature. */
  batch_id: string;
  device_id: string;
  /** JSON of the STP envelope as received. */
  envelope: string;
  received_at: string;
}

/** A machine reported to a Trace registration (migration 031, the reporting side). */
export interface TraceReportedDevicesTable {
  target_id: string;
  device_id: string;
  reported_at: string;
}

/** A machine a reporting Manage instance approved (migration 031, the Trace side). */
export interface PeerDevicesTable {
  device_id: string;
  /** The registration (`trace/list` id) of the instance that reported it. */
  manage_id: string;
  /** JSON: {name, serialNumber, model, manufacturer}. */
  identity: string;
  signing_certificate: string;
  received_at: string;
}

export interface TraceTables {
  trace_reported_devices: TraceReportedDevicesTable;
  peer_devices: PeerDevicesTable;
  trace_event_batches: TraceEventBatchesTable;
  order_breakage: OrderBreakageTable;
  builds: BuildsTable;
  parts: PartsTable;
  trace_events: TraceEventsTable;
  trace_chains: TraceChainsTable;
}

export type TraceEventRow = Selectable<TraceEventsTable>;
export type TraceChainRow = Selectable<TraceChainsTable>;
export type BuildRow = Selectable<BuildsTable>;
export type PartRow = Selectable<PartsTable>;
