import { describe } from 'vitest';
import { benchSmokes } from './helpers/bench-smoke.js';

const bench = 'apps/server/bench';
const tiny = ['--duration', '0.1', '--connections', '2'];

// The request-path and list benchmarks (`npm run bench` and its neighbours) with their smallest
// options; the data-path ones are in benchmarks-data.int.test.ts.
describe('benchmark scripts: requests and lists (smallest options, nothing timed)', () => {
  benchSmokes([
    {
      script: 'bench:request',
      args: [`${bench}/request-path-bench.ts`, ...tiny, '--rounds', '1', '--db', 'sqlite'],
      heading: ['title', 'requests/s', 'ratio', 'CPU ratio'],
    },
    {
      script: 'bench:session',
      args: [`${bench}/session-bench.ts`, ...tiny],
      heading: ['title', 'requests/s', 'p99 ms'],
    },
    {
      script: 'bench:authorize',
      args: [`${bench}/licensing-bench.ts`, '--mode', 'authorize', '--databases', 'sqlite', ...tiny, '--rounds', '1'],
      heading: ['title', 'requests/s', 'ratio', 'authorized in total'],
    },
    {
      script: 'bench:instances',
      args: [`${bench}/licensing-bench.ts`, '--mode', 'instances', '--databases', 'postgres', ...tiny, '--rounds', '1'],
      heading: ['title', 'requests/s', 'ratio', 'authorized in total'],
      needs: 'postgres',
    },
    {
      script: 'bench:download',
      args: [`${bench}/licensing-bench.ts`, '--mode', 'download', '--databases', 'sqlite', ...tiny, '--rounds', '1'],
      heading: ['title', 'requests/s', 'ratio'],
    },
    {
      script: 'bench:orders',
      args: [`${bench}/licensing-bench.ts`, '--mode', 'orders', '--databases', 'sqlite', '--orders', '200', '--duration', '0.1'],
      heading: ['title', 'requests/s', 'p99 ms'],
    },
    {
      script: 'bench:order-detail',
      args: [`${bench}/licensing-bench.ts`, '--mode', 'detail', '--databases', 'sqlite', '--orders', '200', '--duration', '0.1'],
      heading: ['title', 'requests/s', 'p99 ms'],
    },
    {
      script: 'bench:lists',
      args: [`${bench}/lists-bench.ts`, '--databases', 'sqlite', '--rows', '100', ...tiny, '--lists', 'order,part'],
      heading: ['database', 'list', 'first ms', 'middle ms', 'last ms', 'slowest/fastest', 'within 1.5'],
    },
    {
      script: 'bench:quality',
      args: [`${bench}/quality-bench.ts`, '--databases', 'sqlite', '--parts', '200', ...tiny],
      heading: ['title', 'requests/s', 'p99 ms'],
    },
    {
      script: 'bench:dashboard',
      args: [`${bench}/dashboard-bench.ts`, '--databases', 'sqlite', '--parts', '200', ...tiny],
      heading: ['title', 'requests/s', 'p99 ms'],
    },
  ]);
});
