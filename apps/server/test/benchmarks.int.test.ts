import { describe } from 'vitest';
import { benchSmokes } from './helpers/bench-smoke.js';

const bench = 'apps/server/bench';
const tiny = ['--duration', '0.1', '--connections', '2'];

// The server benchmarks of `npm run bench` (issue 17's figures) with their smallest options. The
// others are not run here: together they would add about two and a half minutes to the suite
// (docs/testing.md#benchmarks).
describe('benchmark scripts of npm run bench (smallest options, nothing timed)', () => {
  benchSmokes([
    {
      script: 'bench:request',
      args: [`${bench}/request-path-bench.ts`, ...tiny, '--rounds', '1', '--db', 'sqlite'],
      heading: ['title', 'requests/s', 'ratio', 'CPU ratio'],
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
      script: 'bench:lists',
      args: [`${bench}/lists-bench.ts`, '--databases', 'sqlite', '--rows', '100', ...tiny, '--lists', 'order,part'],
      heading: ['database', 'list', 'first ms', 'middle ms', 'last ms', 'slowest/fastest', 'within 1.5'],
    },
  ]);
});
