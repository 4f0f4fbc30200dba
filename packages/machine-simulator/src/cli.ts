#!/usr/bin/env -S node --import tsx
/**
 * `npm run machine -- --server URL [options]`: one simulated machine, or a fleet, against a
 * Manifold server's partner interfaces. See docs/simulator.md.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { developmentCaFile, readCaFile } from './ca-file.js';
import { Fleet } from './fleet.js';
import { defaultBehaviour, type Span } from './machine.js';

const usage = `usage: npm run machine -- --server URL [options]
  --server URL          the Manifold server (its partner interfaces: /apl, /stp, /mpf)
  --ca FILE             CA file (PEM certificate + private key) that issues the machines' certificates;
                        default: a development CA made in the state directory (upload its
                        ca-certificate.pem as a trust anchor of the server)
  --trust FILE          root certificate(s) trusted for signed authorizations (default: the CA's)
  --count N             machines in this process (default 1)
  --name PREFIX         machine names PREFIX 1 … PREFIX N (default "Printer")
  --state-dir DIR       keys, registrations and chain heads survive restarts here (default .machine-simulator)
  --failure-rate R      share of jobs that fail, 0–1 (default ${defaultBehaviour.failureRate})
  --cancel-rate R       share of jobs that are cancelled (default ${defaultBehaviour.cancelRate})
  --pause-rate R        share of jobs that pause once (default ${defaultBehaviour.pauseRate})
  --job-ms MIN-MAX      printing time of a job (default ${defaultBehaviour.jobMs.join('-')})
  --pause-ms MIN-MAX    length of a pause (default ${defaultBehaviour.pauseMs.join('-')})
  --parts MIN-MAX       parts per job, at most what the licence has left (default ${defaultBehaviour.partsPerJob.join('-')})
  --poll-ms MS          wait between looks for work or approval (default ${defaultBehaviour.pollMs})
  --no-machine-data     do not upload a data file after each job
  --status-seconds S    print a status line every S seconds (default 30; 0: never)
  --quiet               only status lines and errors`;

function fail(message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

function rate(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 1)) fail(`--${name} must be between 0 and 1`);
  return parsed;
}

function span(value: string | undefined, name: string, fallback: Span): Span {
  if (value === undefined) return fallback;
  const match = /^(\d+)(?:-(\d+))?$/.exec(value);
  if (!match) fail(`--${name} must be MIN-MAX (whole numbers)`);
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (high < low) fail(`--${name}: MAX is below MIN`);
  return [low, high];
}

function whole(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) fail(`--${name} must be a whole number of at least ${min}`);
  return parsed;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        server: { type: 'string' },
        ca: { type: 'string' },
        trust: { type: 'string' },
        count: { type: 'string' },
        name: { type: 'string' },
        'state-dir': { type: 'string' },
        'failure-rate': { type: 'string' },
        'cancel-rate': { type: 'string' },
        'pause-rate': { type: 'string' },
        'job-ms': { type: 'string' },
        'pause-ms': { type: 'string' },
        parts: { type: 'string' },
        'poll-ms': { type: 'string' },
        'no-machine-data': { type: 'boolean' },
        'status-seconds': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const values = parsed.values;
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!values.server) fail('--server is required');
  try {
    new URL(values.server);
  } catch {
    fail('--server must be an absolute URL');
  }
  const failureRate = rate(values['failure-rate'], 'failure-rate', defaultBehaviour.failureRate);
  const cancelRate = rate(values['cancel-rate'], 'cancel-rate', defaultBehaviour.cancelRate);
  if (failureRate + cancelRate > 1) fail('--failure-rate and --cancel-rate add up to more than 1');
  const count = whole(values.count, 'count', 1, 1);
  const behaviour = {
    failureRate,
    cancelRate,
    pauseRate: rate(values['pause-rate'], 'pause-rate', defaultBehaviour.pauseRate),
    jobMs: span(values['job-ms'], 'job-ms', defaultBehaviour.jobMs),
    pauseMs: span(values['pause-ms'], 'pause-ms', defaultBehaviour.pauseMs),
    partsPerJob: span(values.parts, 'parts', defaultBehaviour.partsPerJob),
    pollMs: whole(values['poll-ms'], 'poll-ms', defaultBehaviour.pollMs, 10),
    uploadMachineData: !values['no-machine-data'],
  };
  const statusSeconds = whole(values['status-seconds'], 'status-seconds', 30);
  const stateDir = path.resolve(values['state-dir'] ?? '.machine-simulator');
  let ca;
  if (values.ca) ca = await readCaFile(values.ca);
  else {
    const made = await developmentCaFile(path.join(stateDir, 'ca.pem'));
    ca = made.ca;
    const certificateFile = path.join(stateDir, 'ca-certificate.pem');
    await fs.writeFile(certificateFile, ca.certificatePem);
    if (made.created) console.log(`made a development CA; upload ${certificateFile} as a trust anchor of the server`);
  }
  const trustAnchors = values.trust ? [await fs.readFile(values.trust, 'utf8')] : [ca.certificatePem];
  const fleet = new Fleet({
    serverUrl: values.server,
    ca,
    trustAnchors,
    count,
    namePrefix: values.name ?? 'Printer',
    stateDir,
    behaviour,
    log: values.quiet ? (line) => line.includes('error') && console.error(line) : (line) => console.log(line),
  });
  const started = Date.now();
  const timer =
    statusSeconds > 0
      ? setInterval(() => {
          const stats = fleet.stats();
          const minutes = (Date.now() - started) / 60_000;
          console.log(
            `status: ${JSON.stringify(fleet.states())} events ${stats.events} (${(stats.events / minutes).toFixed(1)}/min), jobs ended ${stats.jobsEnded} failed ${stats.jobsFailed} cancelled ${stats.jobsCancelled}, parts ${stats.partsMade}, data files ${stats.machineDataFiles}, errors ${stats.errors}`,
          );
        }, statusSeconds * 1000)
      : undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping: running jobs are cancelled, every machine reports offline');
    void fleet.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await fleet.register();
  await fleet.run();
  if (timer) clearInterval(timer);
  const stats = fleet.stats();
  console.log(`stopped: ${stats.events} events, ${stats.jobsEnded} jobs ended, ${stats.partsMade} parts`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
