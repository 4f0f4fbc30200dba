// Figures for arriving with a live session (a bookmark, a link from a colleague): the JavaScript a
// cold browser loads to show a screen (until nothing more is fetched), summed as the server sends
// it (gzip, level 9), and the time until the screen shows its navigation and its title. The logged-out first load is
// e2e/measure-login.ts and e2e/lighthouse.ts. Run: node --import tsx e2e/measure-signed-in.ts [runs] [path…] [--rtt ms]
// (--rtt: every request's answer delayed by that many milliseconds, Chromium's network emulation; default none)
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumArgs } from './support/chromium';
import { median } from './support/figures';
import { buildConsoleIfStale, startServer } from './support/server';

const { values, positionals } = parseArgs({ options: { rtt: { type: 'string', default: '0' } }, allowPositionals: true });
const runs = Number(positionals[0] ?? 3);
const paths = positionals.slice(1);
const rtt = Number(values.rtt);
const arrivals = paths.length > 0 ? paths : ['/', '/orders', '/quality'];

buildConsoleIfStale();
const server = await startServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
try {
  const response = await fetch(`${server.baseUrl}/ui/user/login`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: server.adminUsername, password: server.adminPassword }),
  });
  const { sessionToken } = (await response.json()) as { sessionToken: string };
  const table = [];
  for (const arrival of arrivals) {
    const kilobytes: number[] = [];
    const files: number[] = [];
    const timings: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      // a fresh context: no cache, the session's cookie as the console keeps it
      const context = await browser.newContext({ baseURL: server.baseUrl });
      await context.addCookies([{ name: 'sessionToken', value: sessionToken, url: server.baseUrl, sameSite: 'Lax' }]);
      const page = await context.newPage();
      if (rtt > 0) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: rtt,
          downloadThroughput: -1,
          uploadThroughput: -1,
        });
      }
      const bodies: Promise<number>[] = [];
      page.on('response', (answer) => {
        if (answer.request().resourceType() === 'script')
          bodies.push(answer.body().then((body) => gzipSync(body, { level: 9 }).length));
      });
      const started = performance.now();
      await page.goto(arrival);
      await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      timings.push(performance.now() - started);
      await page.waitForLoadState('networkidle');
      const sizes = await Promise.all(bodies);
      kilobytes.push(sizes.reduce((sum, size) => sum + size, 0) / 1024);
      files.push(sizes.length);
      await context.close();
    }
    table.push({
      path: arrival,
      'script kB gzip (median)': Number(median(kilobytes).toFixed(1)),
      files: median(files),
      'title shown, ms (median)': Math.round(median(timings)),
      runs: timings.map((timing) => Math.round(timing)).join(' '),
    });
  }
  console.table(table);
  console.log(
    `signed in as an administrator, a cold browser per run; script counted until no request for 500 ms${rtt > 0 ? `; every answer ${rtt} ms later (--rtt)` : ''}`,
  );
} finally {
  await browser.close();
  await server.stop();
}
