// A native load generator (wrk) and round-robin proxy (HAProxy), both from Debian's packages, for
// benchmarks where the apparatus shares the cores it measures: on the 2-core machine the Node
// proxy and autocannon spent about a quarter of what each authorization cost the whole machine.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureSystemTools } from '../../../scripts/system-tools.mjs';
import { freePort, type ServerProcess, trackProcess, untilHealthy } from '../test/helpers/server-process.js';

/** Installs wrk and HAProxy when missing (as `npm test` does its tools), or stops saying how. */
export function ensureNativeLoadTools(label: string): void {
  const ready = ensureSystemTools({
    label,
    tools: [
      { command: 'wrk', package: 'wrk' },
      { command: 'haproxy', package: 'haproxy' },
    ],
    // HAProxy lives in /usr/sbin, which an unprivileged PATH may leave out
    searchPath: `${process.env.PATH ?? ''}${path.delimiter}/usr/sbin`,
  });
  if (!ready) throw new Error(`${label}: wrk and haproxy are needed (or pass --proxy node --generator autocannon)`);
}

/** The HAProxy binary (in /usr/sbin, which may not be on the PATH). */
function haproxyBinary(): string {
  return fs.existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
}

/**
 * HAProxy in HTTP mode on a free loopback port, one thread, each request to the next of
 * `upstreams` in turn (`balance roundrobin` balances every request of a keep-alive connection),
 * idle upstream connections reused. Answers when a `/healthz` passes through it.
 */
export async function startHaproxy(upstreams: string[]): Promise<ServerProcess> {
  const port = await freePort();
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-haproxy-'));
  const config = path.join(directory, 'haproxy.cfg');
  fs.writeFileSync(
    config,
    [
      'global',
      '  nbthread 1',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      // an upstream connection idle for 2 s is closed before the server's keep-alive timeout could
      '  timeout http-keep-alive 2s',
      '  http-reuse always',
      'frontend bench',
      `  bind 127.0.0.1:${port}`,
      '  default_backend servers',
      'backend servers',
      '  balance roundrobin',
      ...upstreams.map((upstream, i) => `  server s${i} ${new URL(upstream).host}`),
      '',
    ].join('\n'),
  );
  const child = spawn(haproxyBinary(), ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const proxy = trackProcess(child, `http://127.0.0.1:${port}`, () => fs.rmSync(directory, { recursive: true, force: true }));
  return untilHealthy(proxy, 20_000);
}

/** One request of a load: sent in turn with the others. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Path and query. */
  path: string;
  body?: string;
}

export interface WrkLoad {
  /** The server's origin (`http://127.0.0.1:port`). */
  origin: string;
  connections: number;
  /** Seconds (wrk takes whole seconds: a fraction is rounded up, at least 1). */
  duration: number;
  headers: Record<string, string>;
  /** Sent in turn, over all connections. */
  requests: LoadRequest[];
}

export interface WrkResult {
  /** Answers with a status below 400. */
  ok: number;
  'requests/s': number;
  'p99 ms': number;
  'mean ms': number;
}

/** Lua string literal. */
function luaString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/**
 * One wrk measurement on one thread: the connections send `requests` in turn. Fails on any error or
 * answer of 400 and above. wrk stops with up to one request per connection in flight, uncounted.
 */
export async function runWrk(title: string, load: WrkLoad): Promise<WrkResult> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-wrk-'));
  try {
    const script = path.join(directory, 'load.lua');
    fs.writeFileSync(
      script,
      [
        ...Object.entries(load.headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
        'local requests = {',
        ...load.requests.map(
          ({ method, path: target, body }) =>
            `  { ${luaString(method)}, ${luaString(target)}${body === undefined ? '' : `, ${luaString(body)}`} },`,
        ),
        '}',
        'local n = 0',
        'request = function()',
        '  local r = requests[(n % #requests) + 1]',
        '  n = n + 1',
        '  return wrk.format(r[1], r[2], nil, r[3])',
        'end',
        'done = function(summary, latency, requests)',
        '  local e = summary.errors',
        '  io.write(string.format("WRK-RESULT %d %d %d %d %d %d %d %d %f\\n", summary.requests, summary.duration,',
        '    e.connect, e.read, e.write, e.status, e.timeout, latency:percentile(99), latency.mean))',
        'end',
        '',
      ].join('\n'),
    );
    const child = spawn(
      'wrk',
      [
        '-t1',
        `-c${load.connections}`,
        `-d${Math.max(1, Math.ceil(load.duration))}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        `${load.origin}/`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', resolve);
    });
    const line = /WRK-RESULT (.*)/.exec(stdout)?.[1];
    if (code !== 0 || !line) throw new Error(`${title}: wrk exited with ${code}: ${stderr.trim()} ${stdout.trim()}`);
    const [requests, durationUs, connect, read, write, status, timeout, p99Us, meanUs] = line.split(' ').map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (connect + read + write + status + timeout > 0)
      throw new Error(
        `${title}: ${status} answers of 400 and above, ${connect} connect, ${read} read, ${write} write errors, ${timeout} timeouts`,
      );
    return {
      ok: requests,
      'requests/s': Math.round(requests / (durationUs / 1e6)),
      'p99 ms': Number((p99Us / 1000).toFixed(1)),
      'mean ms': Number((meanUs / 1000).toFixed(2)),
    };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
