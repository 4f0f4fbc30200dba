import { ZTraceEventBody, ZTraceHistory, type TChainFinding } from '@manifold/contract';
import { canonicalEvent, eventHash, proofChecker } from './trace-event-format.js';

export interface HistoryReport {
  deviceId: string | null;
  events: number;
  /** Events whose previousHash is not the hash of the event before them (the server's findings included). */
  breaks: { sequence: number; eventId: string; found: string | null; expected: string | null; recorded: TChainFinding | null }[];
  /** Everything else that is wrong: signatures, hashes, content, numbering. Empty for a sound history. */
  problems: string[];
}

/**
 * Checks an exported history (`GET /ui/event/export`) without a server: each event's proof
 * against the machine's signing certificate (the file's, or `certificatePem` when the caller pins
 * one), that the signed content is the event the file lists (its hash recomputed from the
 * canonical form), and that each event's previousHash is the hash of the one before it. A
 * batch-signed event's envelope (the file's `batches`) is verified once, and the event is the one
 * at its index in it.
 */
export async function verifyHistory(input: unknown, options: { certificatePem?: string } = {}): Promise<HistoryReport> {
  const parsed = ZTraceHistory.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      deviceId: null,
      events: 0,
      breaks: [],
      problems: [`not a trace history: ${issue.path.join('.')}: ${issue.message}`],
    };
  }
  const history = parsed.data;
  const certificate = options.certificatePem ?? history.signingCertificate;
  const report: HistoryReport = { deviceId: history.deviceId, events: history.events.length, breaks: [], problems: [] };
  const check = proofChecker(certificate, new Map(history.batches.map((batch) => [batch.batchId, batch.envelope])));
  let previous: string | null = null;
  for (const [index, entry] of history.events.entries()) {
    const label = `event ${entry.sequence} (${entry.eventId})`;
    if (entry.sequence !== index + 1) report.problems.push(`${label}: numbered ${entry.sequence}, expected ${index + 1}`);
    let signed: { deviceId: string; body: Record<string, unknown> };
    try {
      signed = await check(entry.proof);
    } catch (error) {
      report.problems.push(`${label}: the signature does not verify: ${error instanceof Error ? error.message : String(error)}`);
      previous = entry.eventHash;
      continue;
    }
    const body = ZTraceEventBody.safeParse(signed.body);
    if (!body.success || signed.deviceId !== history.deviceId) {
      report.problems.push(`${label}: the signed content is not an event of machine ${history.deviceId}`);
      previous = entry.eventHash;
      continue;
    }
    const hash = eventHash(canonicalEvent(body.data, signed.deviceId));
    if (body.data.eventId !== entry.eventId) report.problems.push(`${label}: the signed eventId is ${body.data.eventId}`);
    if (hash !== entry.eventHash)
      report.problems.push(`${label}: the signed event hashes to ${hash}, the file says ${entry.eventHash}`);
    if (body.data.previousHash !== entry.previousHash)
      report.problems.push(`${label}: the signed previousHash differs from the file's`);
    const recorded = entry.chainFinding;
    if (body.data.previousHash !== previous) {
      report.breaks.push({
        sequence: entry.sequence,
        eventId: entry.eventId,
        found: body.data.previousHash,
        expected: previous,
        recorded,
      });
      if (recorded === null) report.problems.push(`${label}: the chain breaks here and the server recorded no finding`);
    } else if (recorded !== null) {
      report.problems.push(`${label}: the server recorded a ${recorded}, but the event continues the chain`);
    }
    previous = hash;
  }
  return report;
}
