/**
 * `npm run verify-history -- <exported file> [--certificate <machine signing certificate PEM>]`
 *
 * Checks a machine's exported event history (`GET /ui/event/export`) offline: every signature,
 * every hash and the chain (docs/traceability.md). Exit code 0 when the history is sound, 1 when
 * anything is wrong (each finding on its own line), 2 on usage errors.
 */
import fs from 'node:fs';
import { verifyHistory } from '../modules/events/verify-history.js';

async function main(args: string[]): Promise<number> {
  const certificateAt = args.indexOf('--certificate');
  const certificatePath = certificateAt >= 0 ? args[certificateAt + 1] : undefined;
  const files = certificateAt >= 0 ? args.filter((_, index) => index !== certificateAt && index !== certificateAt + 1) : args;
  if (files.length !== 1 || (certificateAt >= 0 && !certificatePath)) {
    console.error('usage: npm run verify-history -- <exported file> [--certificate <signing certificate PEM>]');
    return 2;
  }
  let history: unknown;
  try {
    history = JSON.parse(fs.readFileSync(files[0]!, 'utf8'));
  } catch (error) {
    console.error(`cannot read ${files[0]}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const report = await verifyHistory(
    history,
    certificatePath ? { certificatePem: fs.readFileSync(certificatePath, 'utf8') } : {},
  );
  console.log(`machine ${report.deviceId ?? '?'}: ${report.events} events`);
  for (const found of report.breaks) {
    console.log(
      `break at event ${found.sequence} (${found.eventId}): previousHash ${found.found ?? 'none'}, expected ${found.expected ?? 'none'}` +
        (found.recorded ? ` (recorded by the server as ${found.recorded})` : ''),
    );
  }
  for (const problem of report.problems) console.log(`problem: ${problem}`);
  const sound = report.breaks.length === 0 && report.problems.length === 0;
  console.log(sound ? 'history verified: every signature, hash and link checks' : 'history NOT verified');
  return sound ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
