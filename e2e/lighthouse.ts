// Lighthouse's performance score for arriving logged out at the console (at /login, and at a
// deep link such as /orders that leads to the login form), in Debian's Chromium, with
// Lighthouse's default mobile emulation and simulated throttling, next to the JavaScript the
// page fetched (gzip). A figure, not a test: `npm run bench:console [-- runs [mobile|desktop]]` (median of runs).
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import type * as LH from 'lighthouse/types/lh.js';
import { chromiumArgs } from './support/chromium';
import { median } from './support/figures';
import { buildConsoleIfStale, startServer } from './support/server';

const runs = Number(process.argv[2] ?? 3);
// Lighthouse's own presets: mobile (its default: a mid-range phone on slow 4G) or desktop
const preset = process.argv[3] === 'desktop' ? 'desktop' : 'mobile';
const paths = ['/login', '/orders'];

/** Lighthouse's desktop preset's throttling (lighthouse-core/config/constants.js `desktopDense4G`). */
const desktopDense4G = {
  rttMs: 40,
  throughputKbps: 10 * 1024,
  cpuSlowdownMultiplier: 1,
  requestLatencyMs: 0,
  downloadThroughputKbps: 0,
  uploadThroughputKbps: 0,
};

type TraceEvent = LH.Artifacts['Trace']['traceEvents'][number];

/**
 * Total blocking time worked out from the main thread's CPU time instead of its wall time: each
 * task after the first contentful paint counts what its CPU time (`tdur`) times Lighthouse's CPU
 * slowdown exceeds 50 ms. Other processes taking the CPU stretch a task's wall time (which
 * Lighthouse's TBT uses), not its CPU time, so on a shared, loaded machine this is the page's own
 * part. An estimate: Lighthouse's simulation also places the tasks by the network's timing.
 */
function cpuBlockingTime(events: readonly TraceEvent[], slowdown: number): number {
  const navigation = events.find((event) => event.name === 'navigationStart' && event.args.data?.isLoadingMainFrame);
  if (!navigation) return Number.NaN;
  const paint = events.find((event) => event.name === 'firstContentfulPaint' && event.pid === navigation.pid);
  const from = paint?.ts ?? navigation.ts;
  let blocking = 0;
  for (const event of events) {
    if (event.name !== 'RunTask' || event.ph !== 'X' || event.pid !== navigation.pid || event.tid !== navigation.tid) continue;
    if (event.ts < from) continue;
    const cpu = 'tdur' in event && typeof event.tdur === 'number' ? event.tdur : (event.dur ?? 0);
    blocking += Math.max(0, (cpu / 1000) * slowdown - 50);
  }
  return blocking;
}

buildConsoleIfStale();
const server = await startServer();
const chrome = await chromeLauncher.launch({
  chromePath: '/usr/bin/chromium',
  chromeFlags: chromiumArgs,
});
try {
  const table: Record<string, string | number>[] = [];
  for (const path of paths) {
    const scores: number[] = [];
    const metrics: Record<string, number[]> = {
      fcp: [],
      lcp: [],
      tbt: [],
      cpuTbt: [],
      cls: [],
      scriptKb: [],
      benchmarkIndex: [],
    };
    let failed = 0;
    for (let run = 0; run < runs; run += 1) {
      const result = await lighthouse(`${server.baseUrl}${path}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
        ...(preset === 'desktop'
          ? {
              formFactor: 'desktop' as const,
              screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false },
              throttling: desktopDense4G,
            }
          : {}),
      });
      if (!result) throw new Error(`lighthouse gave no result for ${path}`);
      const { lhr, artifacts } = result;
      // a run whose trace Lighthouse could not read (NO_NAVSTART, NO_FCP under load) has no figures: run it again
      if (lhr.runtimeError) {
        failed += 1;
        console.warn(`${path}: Lighthouse failed (${lhr.runtimeError.code}), running again`);
        if (failed > runs) throw new Error(`Lighthouse failed ${failed} times on ${path}`);
        run -= 1;
        continue;
      }
      scores.push(Math.round((lhr.categories.performance?.score ?? 0) * 100));
      metrics.fcp!.push(lhr.audits['first-contentful-paint']?.numericValue ?? 0);
      metrics.lcp!.push(lhr.audits['largest-contentful-paint']?.numericValue ?? 0);
      metrics.tbt!.push(lhr.audits['total-blocking-time']?.numericValue ?? 0);
      metrics.cpuTbt!.push(cpuBlockingTime(artifacts.Trace.traceEvents, preset === 'desktop' ? 1 : 4));
      metrics.cls!.push(lhr.audits['cumulative-layout-shift']?.numericValue ?? 0);
      // Lighthouse's own measure of the host's CPU speed: its simulated phone is this machine slowed
      // four times, so scores of machines whose index differs are not comparable
      metrics.benchmarkIndex!.push(lhr.environment.benchmarkIndex);
      // the scripts the page fetched, gzip at level 9 (what the server sends: see docs/console.md)
      const scripts = (artifacts.DevtoolsLog ?? []).flatMap((entry) =>
        entry.method === 'Network.responseReceived' && entry.params.type === 'Script' ? [entry.params.response.url] : [],
      );
      let gzip = 0;
      for (const url of scripts) {
        const body = await fetch(url).then((response) => response.arrayBuffer());
        gzip += gzipSync(Buffer.from(body), { level: 9 }).length;
      }
      metrics.scriptKb!.push(gzip / 1024);
    }
    table.push({
      path,
      preset,
      'performance score (median)': median(scores),
      scores: scores.join(' '),
      'FCP ms': Math.round(median(metrics.fcp!)),
      'LCP ms': Math.round(median(metrics.lcp!)),
      'TBT ms': Math.round(median(metrics.tbt!)),
      'TBT from CPU ms': Math.round(median(metrics.cpuTbt!)),
      CLS: Number(median(metrics.cls!).toFixed(3)),
      'script kB gzip': Number(median(metrics.scriptKb!).toFixed(1)),
      'host benchmarkIndex': Math.round(median(metrics.benchmarkIndex!)),
    });
  }
  console.table(table);
  console.log('goal: performance score ≥ 95 and ≤ 200 kB of script (gzip) for any first navigation');
} finally {
  await chrome.kill();
  await server.stop();
}
