import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenceState, verifyLicence } from '../src/modules/licence/licence-document.js';
import { runCli } from './helpers/cli.js';

// `npm run licence:issue` (apps/server/src/cli/issue-licence.ts, docs/administration.md): the
// publisher's key and certificate, then a licence signed with them, checked as the server checks it.

const cli = path.resolve(import.meta.dirname, '../src/cli/issue-licence.ts');

describe('npm run licence:issue', () => {
  let dir: string;
  let publisherPem: string;

  const issue = async (file: string, ...args: string[]) => {
    const out = path.join(dir, file);
    const result = await runCli(cli, [
      '--key',
      path.join(dir, 'publisher', 'publisher-key.pem'),
      '--holder',
      'Acme Manufacturing',
      '--id',
      file,
      '--out',
      out,
      ...args,
    ]);
    return { ...result, out };
  };

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-licence-cli-'));
    const publisher = await runCli(cli, ['publisher', '--out', path.join(dir, 'publisher')]);
    expect(publisher.code, publisher.stderr).toBe(0);
    publisherPem = await fs.readFile(path.join(dir, 'publisher', 'publisher.pem'), 'utf8');
  });

  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('takes a date alone for --until as the whole of that day (UTC): valid all 31 December, expired at the next midnight', async () => {
    const { code, stdout, stderr, out } = await issue('L-day', '--from', '2026-01-01', '--until', '2027-12-31');
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(
      `wrote licence L-day for Acme Manufacturing (valid through 2027-12-31 UTC: expires at 2028-01-01T00:00:00.000Z) to ${out}\n`,
    );
    const terms = await verifyLicence(await fs.readFile(out, 'utf8'), publisherPem);
    expect(terms).toMatchObject({ validFrom: '2026-01-01T00:00:00.000Z', validUntil: '2028-01-01T00:00:00.000Z' });
    expect(licenceState(terms, new Date('2027-12-31T00:00:00.000Z')).state).not.toBe('expired');
    expect(licenceState(terms, new Date('2027-12-31T23:59:59.999Z')).state).not.toBe('expired');
    expect(licenceState(terms, new Date('2028-01-01T00:00:00.000Z')).state).toBe('expired');
  });

  it('keeps a full time given to --until as it is', async () => {
    const { code, stdout, stderr, out } = await issue('L-time', '--until', '2027-12-31T12:30:00Z');
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`wrote licence L-time for Acme Manufacturing (until 2027-12-31T12:30:00.000Z) to ${out}\n`);
    const terms = await verifyLicence(await fs.readFile(out, 'utf8'), publisherPem);
    expect(terms.validUntil).toBe('2027-12-31T12:30:00.000Z');
  });

  it('refuses a day that is not in the calendar (exit code 2), writing nothing', async () => {
    const { code, stderr, out } = await issue('L-bad', '--until', '2027-02-30');
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('--until is not a date: 2027-02-30');
    await expect(fs.stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
