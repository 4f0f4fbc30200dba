/**
 * Operating licences (docs/administration.md#operating-licence).
 *
 * `npm run licence:issue -- publisher --out <dir> [--name <publisher name>] [--key-type EC|RSA]`
 *   creates a publisher key (`publisher-key.pem`, keep it secret) and its self-signed
 *   certificate (`publisher.pem`: give it to servers as `LICENCE_PUBLISHER_CERT`).
 *
 * `npm run licence:issue -- --key <publisher-key.pem> --holder <name> --until <date>
 *    [--from <date>] [--machines <n>] [--peers <n>] [--addons a,b] [--id <licenceId>] --out <file>`
 *   writes a licence file signed with the publisher key. Dates are ISO 8601 (`2027-12-31` or a
 *   full time); a date alone is that day in UTC, and `--until` a date alone is valid through the
 *   end of that day (`validUntil` is the next midnight, the first instant it is expired); a limit
 *   left out is no limit; addons are designArchive, quality, secureRepository.
 *
 * Exit code 0 on success, 2 on usage errors.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { addonNames, ZLicenceDocument } from '@manifold/contract';
import { createDevelopmentRootCa } from '../crypto/development-ca.js';
import { issueLicence } from '../modules/licence/licence-document.js';

const usage = `usage:
  npm run licence:issue -- publisher --out <dir> [--name <publisher name>] [--key-type EC|RSA]
  npm run licence:issue -- --key <publisher-key.pem> --holder <name> --until <date> [--from <date>]
                           [--machines <n>] [--peers <n>] [--addons ${addonNames.join(',')}] [--id <licenceId>] --out <file>`;

const DAY_MS = 86_400_000;

/**
 * An ISO 8601 date or time as an instant. A date alone (`2027-12-31`) is that day in UTC: its
 * midnight for `--from`; for `--until` the whole day, i.e. the next midnight, the first instant the
 * licence is no longer valid (the server takes a licence as expired from its `validUntil` on).
 */
function parseDate(text: string, flag: string, dateAlone: 'startOfDay' | 'endOfDay'): { iso: string; day?: string } {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const midnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    // Date.UTC rolls 30 February over into March: a day not in the calendar is refused
    if (new Date(midnight).toISOString().slice(0, 10) !== text) throw new UsageError(`${flag} is not a date: ${text}`);
    return { iso: new Date(dateAlone === 'endOfDay' ? midnight + DAY_MS : midnight).toISOString(), day: text };
  }
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${flag} is not a date: ${text}`);
  return { iso: new Date(time).toISOString() };
}

function count(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number`);
  return Number(text);
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      name: { type: 'string' },
      'key-type': { type: 'string' },
      key: { type: 'string' },
      holder: { type: 'string' },
      from: { type: 'string' },
      until: { type: 'string' },
      machines: { type: 'string' },
      peers: { type: 'string' },
      addons: { type: 'string' },
      id: { type: 'string' },
    },
  });
  if (!values.out) throw new UsageError('--out is required');

  if (positionals[0] === 'publisher') {
    const keyType = (values['key-type'] ?? 'EC').toUpperCase();
    if (keyType !== 'EC' && keyType !== 'RSA') throw new UsageError('--key-type must be EC or RSA');
    const publisher = await createDevelopmentRootCa({
      keyType,
      commonName: values.name ?? 'Manifold Licence Publisher',
      notAfter: new Date(Date.now() + 20 * 365 * 86_400_000),
    });
    fs.mkdirSync(values.out, { recursive: true });
    fs.writeFileSync(path.join(values.out, 'publisher-key.pem'), publisher.privateKeyPem, { mode: 0o600 });
    fs.writeFileSync(path.join(values.out, 'publisher.pem'), publisher.certificatePem);
    console.log(`wrote ${path.join(values.out, 'publisher-key.pem')} (secret) and ${path.join(values.out, 'publisher.pem')}`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unknown command ${positionals[0]}`);
  if (!values.key || !values.holder || !values.until) throw new UsageError('--key, --holder and --until are required');

  const addons = values.addons ? values.addons.split(',').filter(Boolean) : [...addonNames];
  const machines = count(values.machines, '--machines');
  const peerInstances = count(values.peers, '--peers');
  const until = parseDate(values.until, '--until', 'endOfDay');
  const parsed = ZLicenceDocument.safeParse({
    licenceId: values.id ?? randomUUID(),
    holder: values.holder,
    validFrom: values.from ? parseDate(values.from, '--from', 'startOfDay').iso : new Date().toISOString(),
    validUntil: until.iso,
    limits: { ...(machines !== undefined ? { machines } : {}), ...(peerInstances !== undefined ? { peerInstances } : {}) },
    addons,
  });
  if (!parsed.success)
    throw new UsageError(
      `not a valid licence: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const file = await issueLicence(parsed.data, fs.readFileSync(values.key, 'utf8'));
  fs.writeFileSync(values.out, `${file}\n`);
  console.log(
    `wrote licence ${parsed.data.licenceId} for ${parsed.data.holder} (${
      until.day ? `valid through ${until.day} UTC: expires at ${until.iso}` : `until ${until.iso}`
    }) to ${values.out}`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n${usage}` : error);
    process.exit(2);
  },
);
