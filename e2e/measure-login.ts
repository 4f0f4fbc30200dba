// Figures for arriving logged out (at /login, or at a deep link that sends you there): the
// JavaScript loaded before the login form (kB, gzip) and the time from navigation to a usable
// login form, on a cold cache. Run: node --import tsx e2e/measure-login.ts [runs] [path]
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumArgs } from './support/chromium';
import { loginFormUsableAt, median } from './support/figures';
import { buildConsoleIfStale, startServer } from './support/server';

const runs = Number(process.argv[2] ?? 5);
const arrival = process.argv[3] ?? '/login';

buildConsoleIfStale();
const server = await startServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
try {
  const timings: number[] = [];
  let scripts: { url: string; raw: number; gzip: number }[] = [];
  for (let run = 0; run < runs; run += 1) {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const page = await context.newPage();
    const bodies: Promise<{ url: string; raw: number; gzip: number }>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() !== 'script') return;
      bodies.push(
        response.body().then((body) => ({
          url: new URL(response.url()).pathname,
          raw: body.length,
          gzip: gzipSync(body, { level: 9 }).length,
        })),
      );
    });
    await page.goto(arrival);
    timings.push(await loginFormUsableAt(page));
    scripts = await Promise.all(bodies);
    await context.close();
  }
  const totalGzip = scripts.reduce((sum, script) => sum + script.gzip, 0);
  const totalRaw = scripts.reduce((sum, script) => sum + script.raw, 0);
  for (const script of scripts) console.log(`${(script.gzip / 1024).toFixed(1).padStart(7)} kB gzip  ${script.url}`);
  console.log(
    `initial JS arriving at ${arrival}: ${(totalGzip / 1024).toFixed(1)} kB gzip (${(totalRaw / 1024).toFixed(1)} kB raw) in ${scripts.length} files`,
  );
  console.log(
    `navigation to usable login form: median ${median(timings).toFixed(0)} ms over ${runs} cold runs (${timings.map((t) => t.toFixed(0)).join(', ')})`,
  );
} finally {
  await browser.close();
  await server.stop();
}
