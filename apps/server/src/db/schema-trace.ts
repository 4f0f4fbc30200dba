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
  source: 'stp' | 'xml' | 'upload';
  /** JSON of the contract's `TTraceEventProof`. */
  proof: string;
  received_at: string;
}

export interface TraceChainsTable {
  device_id: string;
  length: number;
  head_hash: string | null;
  updated_at: string;
}

export interface TraceTables {
  trace_events: TraceEventsTable;
  trace_chains: TraceChainsTable;
}

export type TraceEventRow = Selectable<TraceEventsTable>;
export type TraceChainRow = Selectable<TraceChainsTable>;
