// Two (or more) builds of the console side by side, for a change to the first load whose effect is
// smaller than the run-to-run spread of one machine: one server per build (CONSOLE_DIR), Lighthouse
// (mobile, as `npm run bench:console`) alternating between them in one Chromium, round after round,
// on /login and /orders arrived at logged out; then the time until the login form is usable in cold
// runs without a trace, alternating the same way. Prints the medians and every run.
//   node --import tsx e2e/lighthouse-ab.ts <rounds> <built console dir> <built console dir> [...]
// A build to compare: `cd apps/console && NODE_ENV=production npx vite build --outDir /tmp/build-a`.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { chromiumArgs } from './support/chromium';
import { loginFormUsableAt, median } from './support/figures';
import { type RunningServer, startServer } from './support/server';

const rounds = Number(process.argv[2]);
const dirs = process.argv.slice(3);
if (!Number.isInteger(rounds) || rounds < 1 || dirs.length < 2) {
  console.error('usage: node --import tsx e2e/lighthouse-ab.ts <rounds> <console dir> <console dir> [...]');
  process.exit(2);
}
const paths = ['/login', '/orders'];

const servers: RunningServer[] = [];
try {
  for (const dir of dirs) servers.push(await startServer({ CONSOLE_DIR: dir }));
  const scores = new Map<string, { score: number[]; tbt: number[]; usable: number[]; failed: string[] }>();
  const entry = (dir: string, path: string) => {
    const key = `${dir} ${path}`;
    if (!scores.has(key)) scores.set(key, { score: [], tbt: [], usable: [], failed: [] });
    return scores.get(key)!;
  };

  const chrome = await chromeLauncher.launch({ chromePath: '/usr/bin/chromium', chromeFlags: chromiumArgs });
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const path of paths) {
        for (const [index, server] of servers.entries()) {
          const result = await lighthouse(`${server.baseUrl}${path}`, {
            port: chrome.port,
            output: 'json',
            logLevel: 'error',
            onlyCategories: ['performance'],
          });
          const figures = entry(dirs[index]!, path);
          // a run whose trace Lighthouse could not read has no figures; it is counted, not retried (the rounds stay paired)
          if (!result || result.lhr.runtimeError) {
            figures.failed.push(result?.lhr.runtimeError?.code ?? 'no result');
            continue;
          }
          figures.score.push(Math.round((result.lhr.categories.performance?.score ?? 0) * 100));
          figures.tbt.push(Math.round(result.lhr.audits['total-blocking-time']?.numericValue ?? 0));
        }
      }
    }
  } finally {
    await chrome.kill();
  }

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const path of paths) {
        for (const [index, server] of servers.entries()) {
          const context = await browser.newContext({ baseURL: server.baseUrl });
          const page = await context.newPage();
          await page.goto(path);
          entry(dirs[index]!, path).usable.push(Math.round(await loginFormUsableAt(page)));
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
  }

  console.table(
    [...scores.entries()].map(([key, figures]) => ({
      'build and path': key,
      'score (median)': median(figures.score),
      scores: figures.score.join(' '),
      'TBT ms (median)': median(figures.tbt),
      'usable form ms (median)': median(figures.usable),
      'runs without a result': figures.failed.join(' ') || 0,
    })),
  );
} finally {
  for (const server of servers) await server.stop();
}
