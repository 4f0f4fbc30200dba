import { describe } from 'vitest';
import { benchSmokes } from './helpers/bench-smoke.js';

const bench = 'apps/server/bench';

// The data-path benchmarks (events in, messages out, files up and down, login throttling) with
// their smallest options; the request-path ones are in benchmarks-requests.int.test.ts.
describe('benchmark scripts: events, messages and files (smallest options, nothing timed)', () => {
  benchSmokes([
    {
      script: 'bench:ingest',
      args: [
        `${bench}/ingest-bench.ts`,
        '--databases',
        'sqlite',
        '--machines',
        '1',
        '--batches',
        '2',
        '--batch',
        '10',
        '--single',
        '5',
        '--rounds',
        '1',
      ],
      heading: ['database', 'form', 'events/s (batches)', 'bare rows/s', 'ratio'],
    },
    {
      script: 'bench:outbox',
      args: [`${bench}/outbox-bench.ts`, '--databases', 'sqlite', '--messages', '20', '--concurrency', '2'],
      heading: ['database', 'run', 'messages/s', 'p99 ms'],
    },
    {
      script: 'bench:throttle',
      args: [`${bench}/login-throttle-bench.ts`, '--attempts', '10'],
      heading: ['parallel attempts', 'passwords checked', 'refused unchecked', 'owner elsewhere'],
    },
    {
      script: 'bench:upload',
      args: [`${bench}/upload-bench.ts`, '--mib', '1'],
      heading: ['what', 'seconds', 'MiB/s'],
    },
    {
      script: 'bench:secure-repo',
      args: [`${bench}/secure-repo-bench.ts`, '--mib', '1'],
      heading: ['what', 'MiB/s', 'bare limit MiB/s', 'ratio'],
    },
    {
      script: 'bench:storage',
      args: [`${bench}/storage-bench.ts`, '--mib', '1'],
      heading: ['provider', 'what', 'server MiB/s', 'SDK directly MiB/s', 'ratio'],
    },
  ]);
});
