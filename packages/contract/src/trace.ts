/**
 * Traceability (spec §3 Trace event, §4 audit event kinds, §7 `POST /apl/event`, `event/upload`):
 * the events machines report, their canonical form and the hash chain each machine's events make
 * (docs/traceability.md). Merged into `manifoldErrorTokens`, `auditEventTypes` and `permissions`.
 */
import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDsiId, ZId } from './identifiers.js';

/** The kinds that move a job (a build); each names its `jobId` (docs/breakage-policy.md). */
export const jobEventKinds = ['jobStarted', 'jobPaused', 'jobResumed', 'jobEnded', 'jobFailed', 'jobCancelled'] as const;

/** Kinds of spec §4 only machines cause (the server has no record of its own for them). */
const machineOnlyKinds = [
  'machineIdle',
  'machineOffline',
  ...jobEventKinds,
  'prebuild',
  'prebuildCancelled',
  'quantityConsumed',
  'revocationReceived',
  'qualityCheckPassed',
  'qualityCheckFailed',
  'scanningPassed',
  'scanningFailed',
  'machineDataStored',
  'machineDataReceived',
] as const;

/**
 * Every audit event kind of spec §4 a machine or its job can cause. Four of them are also
 * written by the server itself when it serves the machine (`licenceReceivedByMachine`,
 * `designPackageReceivedByMachine`, `privateFileDecrypted`, `publicFileAccessed`); a machine
 * reports them from its side.
 */
export const traceEventKinds = [
  'licenceReceivedByMachine',
  'designPackageReceivedByMachine',
  ...machineOnlyKinds,
  'privateFileDecrypted',
  'publicFileAccessed',
] as const;
export const ZTraceEventKind = z.enum(traceEventKinds);
export type TTraceEventKind = z.infer<typeof ZTraceEventKind>;

export function isJobEventKind(kind: TTraceEventKind): kind is (typeof jobEventKinds)[number] {
  return (jobEventKinds as readonly string[]).includes(kind);
}

/** Kinds that need no licence: a machine's own state and data, files anyone may read. */
const machineStateKinds: readonly TTraceEventKind[] = [
  'machineIdle',
  'machineOffline',
  'machineDataStored',
  'machineDataReceived',
  'publicFileAccessed',
];
/** Kinds that belong to a licence: the event must name an authorization of the reporting machine. */
export const authorizationEventKinds: readonly TTraceEventKind[] = traceEventKinds.filter(
  (kind) => !machineStateKinds.includes(kind),
);

/** `gap`: the event's previousHash names no event of the machine; `fork`: it names one that is not the last. */
export const chainFindings = ['gap', 'fork'] as const;
export const ZChainFinding = z.enum(chainFindings);
export type TChainFinding = z.infer<typeof ZChainFinding>;

export const ZEventHash = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 digest in lower-case hex');

/**
 * What a machine reports of one event (the STP body of `POST /stp/event`; the elements of the XML
 * of `POST /apl/event`). The reporting machine's `deviceId` comes from the envelope (or the XML's
 * `DeviceId`); together they are the event's canonical form (docs/traceability.md).
 */
export const ZTraceEventBody = z
  .object({
    eventId: ZId('traceEventIdNotValid'),
    kind: ZTraceEventKind,
    occurredAt: z.iso.datetime({ offset: true }),
    authorizationId: ZId('authorizationNotAvailable').nullable().default(null),
    jobId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, '1-128 letters, digits or . _ : -')
      .nullable()
      .default(null),
    quantity: z.number().int().min(0).max(10_000).nullable().default(null),
    previousHash: ZEventHash.nullable().default(null),
    data: z
      .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a name of letters, digits and _'), z.string().max(1024))
      .refine((data) => Object.keys(data).length <= 32, 'at most 32 entries')
      .default({}),
  })
  .strict();
export type TTraceEventBody = z.infer<typeof ZTraceEventBody>;

/** The event as hashed and chained: the body plus the reporting machine. */
export type TCanonicalTraceEvent = TTraceEventBody & { deviceId: string };

/** The answer to a reported event; a repeated eventId gets the same answer again. */
export const ZTraceEventReceipt = z
  .object({
    eventId: z.string(),
    eventHash: ZEventHash,
    chainFinding: ZChainFinding.nullable(),
  })
  .meta({ id: 'TraceEventReceipt' });
export type TTraceEventReceipt = z.infer<typeof ZTraceEventReceipt>;

/** The STP envelope of `POST /stp/event` exactly as received (its signature over path `/stp/event`). */
const ZSignedEnvelope = z.object({
  deviceId: z.string(),
  timestamp: z.string(),
  nonce: z.string(),
  body: z.record(z.string(), z.unknown()),
  signature: z.string(),
});

/** How an event was signed, kept with it so anyone can check it again (offline too). */
export const ZTraceEventProof = z.discriminatedUnion('format', [
  z.object({ format: z.literal('stp'), envelope: ZSignedEnvelope }),
  z.object({ format: z.literal('xml'), xml: z.string().max(256 * 1024) }),
]);
export type TTraceEventProof = z.infer<typeof ZTraceEventProof>;

/**
 * A reference to an event's place in a batch-signed envelope (docs/traceability.md, "Batch-signed
 * events"): the batch (its id: the SHA-256 of the envelope's signature, lower-case hex) and the
 * index of the event in the envelope's `body.batch`. Stored with the event; the envelope is stored
 * once per batch, and an export carries it once.
 */
export const ZTraceEventBatchReference = z.object({
  format: z.literal('stp-batch'),
  batch: ZEventHash,
  index: z.number().int().min(0),
});
export type TTraceEventBatchReference = z.infer<typeof ZTraceEventBatchReference>;

/** An event's proof as stored and exported: its own signed message, or its place in a batch-signed envelope. */
export const ZStoredTraceEventProof = z.discriminatedUnion('format', [...ZTraceEventProof.options, ZTraceEventBatchReference]);
export type TStoredTraceEventProof = z.infer<typeof ZStoredTraceEventProof>;

/**
 * The proof of an event a Manage instance originates on its own chain (an inspection's quality
 * check, docs/quality.md): the record it keeps. Only such an instance's forwarded events carry it;
 * no machine can send it.
 */
export const ZServerEventProof = z.object({ format: z.literal('server'), inspectionId: z.uuid() });

/** A forwarded event's proof (`event` messages): a machine's, as stored, or the reporting instance's own. */
export const ZForwardedEventProof = z.discriminatedUnion('format', [...ZStoredTraceEventProof.options, ZServerEventProof]);
export type TForwardedEventProof = z.infer<typeof ZForwardedEventProof>;

/** At most this many events in one machine batch (`POST /stp/event` with `body.events` or `body.batch`). */
export const TRACE_EVENT_BATCH_MAX = 1000;

/** A batch-signed envelope, as stored once and exported once: the events whose proofs name `batchId`. */
export const ZTraceEventBatchProof = z.object({ batchId: ZEventHash, envelope: ZSignedEnvelope });
export type TTraceEventBatchProof = z.infer<typeof ZTraceEventBatchProof>;

/** A machine's batch in the list form: the STP envelope's `body` lists its events, each with its own signed proof. */
export const ZTraceEventBatch = z.object({
  events: z
    .array(z.object({ proof: ZTraceEventProof }).passthrough())
    .min(1)
    .max(TRACE_EVENT_BATCH_MAX),
});
export type TTraceEventBatch = z.infer<typeof ZTraceEventBatch>;

/**
 * A machine's batch in the batch-signed form: the STP envelope's `body` is `{batch: [event, …]}`,
 * each event the body a single event's envelope carries; the envelope's one signature covers
 * them all.
 */
export const ZTraceEventSignedBatch = z.object({
  batch: z.array(z.record(z.string(), z.unknown())).min(1).max(TRACE_EVENT_BATCH_MAX),
});
export type TTraceEventSignedBatch = z.infer<typeof ZTraceEventSignedBatch>;

/**
 * `POST /ui/event/upload`: a JSON file of signed events, as `event/export` writes them: each
 * event's proof, and the batch-signed envelopes its batch references name.
 */
export const ZTraceEventFile = z.object({
  events: z
    .array(z.object({ proof: ZStoredTraceEventProof }).passthrough())
    .min(1)
    .max(10_000),
  batches: z.array(ZTraceEventBatchProof).max(10_000).default([]),
});

export const ZTraceEventUploadResult = z
  .object({ received: z.number().int(), stored: z.number().int(), repeated: z.number().int(), findings: z.number().int() })
  .meta({ id: 'TraceEventUploadResult' });
export type TTraceEventUploadResult = z.infer<typeof ZTraceEventUploadResult>;

/** The answer to a batch: the counts, and each event's receipt in the batch's order (a repeat: the first receipt). */
export const ZTraceEventBatchResult = ZTraceEventUploadResult.extend({ events: z.array(ZTraceEventReceipt) }).meta({
  id: 'TraceEventBatchResult',
});
export type TTraceEventBatchResult = z.infer<typeof ZTraceEventBatchResult>;

/** `GET /ui/event/export`: one machine's history, checkable offline (`npm run verify-history`). */
export const TRACE_HISTORY_FORMAT = 'manifold-trace-history/1';
export const ZTraceHistoryEntry = z.object({
  sequence: z.number().int(),
  eventId: z.string(),
  eventHash: ZEventHash,
  previousHash: ZEventHash.nullable(),
  chainFinding: ZChainFinding.nullable(),
  receivedAt: z.string(),
  proof: ZStoredTraceEventProof,
});
export const ZTraceHistory = z
  .object({
    format: z.literal(TRACE_HISTORY_FORMAT),
    deviceId: z.string(),
    /** The machine's registered signing certificate (PEM) the proofs verify against. */
    signingCertificate: z.string(),
    exportedAt: z.string(),
    events: z.array(ZTraceHistoryEntry),
    /** The batch-signed envelopes the events' batch references name, each once (absent in older exports). */
    batches: z.array(ZTraceEventBatchProof).default([]),
  })
  .meta({ id: 'TraceHistory' });
export type TTraceHistory = z.infer<typeof ZTraceHistory>;
export const ZTraceHistoryQuery = z.object({ deviceId: ZId('deviceIdNotValid') });

export const traceErrorTokens = {
  traceEventSignatureInvalid: 'The event is not signed by the registered signing key of the machine it names',
  traceEventMalformed: 'The event document is not a well-formed trace event (no DOCTYPE or entities are accepted)',
  partNotPresent: 'The part does not exist',
  uploadTokenInvalid: 'The upload token is unknown, spent, expired, not for machine data, or of a machine not approved',
  machineDataFieldsFirst: 'Send the fields (token, or deviceId and authorizationId) before the file in the upload',
} as const;

export const traceAuditEventTypes = [
  // spec §4, reported by machines (the four the server also writes live in the package and licensing lists)
  ...machineOnlyKinds,
  // Manifold's: a break in a machine's hash chain, an uploaded file of events
  'traceChainBroken',
  'traceEventsUploaded',
] as const;

/** `GET /ui/event/list` (spec §7: filter dsiId; §9: 10 a page), newest first. */
export const ZEventListQuery = ZPageQuery.extend({ dsiId: ZDsiId.optional() });
/** A trace event as listed (spec §3 Trace event: id, eventId, version, event, status). */
export const ZTraceEventEntry = z
  .object({
    id: z.string(),
    eventId: z.string(),
    version: z.number().int(),
    event: z.object({
      kind: ZTraceEventKind,
      deviceId: z.string(),
      occurredAt: z.string(),
      authorizationId: z.string().nullable(),
      orderId: z.string().nullable(),
      dsiId: z.string().nullable(),
      jobId: z.string().nullable(),
      quantity: z.number().int().nullable(),
      data: z.record(z.string(), z.string()),
    }),
    /** `verified` (signature checked, chain continued) or `chainBroken` (see chainFinding). */
    status: z.enum(['verified', 'chainBroken']),
    chainFinding: ZChainFinding.nullable(),
    sequence: z.number().int(),
    eventHash: ZEventHash,
    previousHash: ZEventHash.nullable(),
    /** `peer`: forwarded by a Manage instance; `server`: recorded by this server on its own chain (an inspection's quality check, docs/quality.md). */
    source: z.enum(['stp', 'xml', 'upload', 'peer', 'server']),
    dateCreated: z.string(),
  })
  .meta({ id: 'TraceEventEntry' });
export type TTraceEventEntry = z.infer<typeof ZTraceEventEntry>;

export const partQmsStates = ['NO_QMS_STEP', 'MANUFACTURED', 'CANCELED', 'FAILURE'] as const;
/** `GET /ui/part/list` (spec §7: dsiId, serialNumber; §6 ADMIN), newest first. */
export const ZPartListQuery = ZPageQuery.extend({
  dsiId: ZDsiId.optional(),
  serialNumber: z.string().min(1).max(200).optional(),
});
/** A part (spec §3: id, dsiId, serialNumber, revoked, imageUrl, partQmsState, traceEvents). */
export const ZPart = z
  .object({
    id: z.string(),
    dsiId: z.string(),
    serialNumber: z.string().nullable(),
    revoked: z.boolean(),
    imageUrl: z.string().nullable(),
    partQmsState: z.enum(partQmsStates),
    /** The eventIds of the part's job, oldest first. */
    traceEvents: z.array(z.string()),
    buildId: z.string(),
    jobId: z.string(),
    deviceId: z.string(),
    authorizationId: z.string(),
    orderId: z.string(),
    /** A failed or cancelled part that counted against the licence (docs/breakage-policy.md). */
    counted: z.boolean(),
    dateCreated: z.string(),
  })
  .meta({ id: 'Part' });
export type TPart = z.infer<typeof ZPart>;

/** `GET /ui/build/list`: builds (the parts of one job), newest first. */
/** `GET /ui/build/list` filters: the design, or one build (a build's page, Manifold's addition). */
export const ZBuildListQuery = ZPageQuery.extend({ dsiId: ZDsiId.optional(), buildId: ZId('buildNotPresent').optional() });
export const ZBuild = z
  .object({
    buildId: z.string(),
    jobId: z.string(),
    deviceId: z.string(),
    authorizationId: z.string(),
    orderId: z.string(),
    dsiId: z.string(),
    state: z.enum(['started', 'paused', 'ended', 'failed', 'cancelled']),
    quantity: z.number().int(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    dateCreated: z.string(),
  })
  .meta({ id: 'Build' });
export type TBuild = z.infer<typeof ZBuild>;

/** `GET /ui/part/history?partId=` (ADMIN, like `part/list`): the part's whole history. */
export const ZPartHistoryQuery = z.object({ partId: ZId('partNotPresent') });

/** At most this many events of the part's licence on its machine are returned, oldest first. */
export const PART_HISTORY_MAX_EVENTS = 1000;

/**
 * A part's history, step by step: the design revision it was made from, the order and the
 * authorization that licensed it, the machine, the job (build), and the machine's events of that
 * licence — the job's own and those naming no job (licence or design received by the machine) —
 * oldest first. Inspection is the part's QMS state and the quality and scanning events among them.
 */
export const ZPartHistory = z
  .object({
    part: ZPart,
    design: z.object({
      dsiId: z.string(),
      dsiVersion: z.number().int(),
      designName: z.string(),
      digestValue: z.string(),
      /** When the revision was built; null when the revision is not on this server (an order from a peer). */
      builtAt: z.string().nullable(),
    }),
    order: z.object({
      orderId: z.string(),
      orderNumber: z.string(),
      companyName: z.string(),
      quantity: z.number().int(),
      expiredQuantity: z.number().int(),
      breakagePolicy: z.string(),
      revoked: z.boolean(),
      dateCreated: z.string(),
    }),
    authorization: z.object({
      authorizationId: z.string(),
      state: z.enum(['authorized', 'sent', 'received', 'revoked']),
      quantity: z.number().int(),
      dateCreated: z.string(),
      sentAt: z.string().nullable(),
      receivedAt: z.string().nullable(),
      revokedAt: z.string().nullable(),
    }),
    /** Null once the machine's registration was deleted. */
    machine: z
      .object({
        deviceId: z.string(),
        name: z.string(),
        serialNumber: z.string(),
        manufacturer: z.string(),
        model: z.string(),
        dateCreated: z.string(),
      })
      .nullable(),
    build: ZBuild,
    events: z.array(ZTraceEventEntry),
    /** More events than `PART_HISTORY_MAX_EVENTS` exist; the newest are left out. */
    eventsTruncated: z.boolean(),
  })
  .meta({ id: 'PartHistory' });
export type TPartHistory = z.infer<typeof ZPartHistory>;

/**
 * An EPCIS 2.0 JSON-LD document (`part/epcis`, `event/epcis`): each event carries its CBV 2.0
 * event hash as `eventID` (docs/traceability.md).
 */
export const ZEpcisDocument = z
  .object({
    '@context': z.array(z.union([z.string(), z.record(z.string(), z.string())])),
    type: z.literal('EPCISDocument'),
    schemaVersion: z.literal('2.0'),
    creationDate: z.string(),
    epcisBody: z.object({ eventList: z.array(z.record(z.string(), z.unknown())) }),
  })
  .meta({ id: 'EpcisDocument' });
export type TEpcisDocument = z.infer<typeof ZEpcisDocument>;
