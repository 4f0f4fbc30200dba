import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { bundledNodeArgs } from '../../../../scripts/server-build.mjs';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * The first answer of `url`, asked every 25 ms until one comes (a refused connection costs about a
 * millisecond; a server starts in about one second, and the suite starts a few hundred).
 */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface ServerProcessOptions {
  /** A TypeScript entry point under apps/server (a benchmark's bare program) instead of the server's. */
  file?: string;
  inheritEnv?: boolean;
  /** Node options before the entry point (e.g. `--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
}

/**
 * Spawns the server as `npm start` runs it, from its bundle (`scripts/server-build.mjs`, built
 * first when stale), or another entry point bundled alike, as its own process with exactly the
 * environment given (plus PATH), on a free port unless `PORT` is given. Output is collected.
 */
export async function spawnServer(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...bundledNodeArgs(options.file)], {
    env: { ...(options.inheritEnv ? process.env : { PATH: process.env.PATH ?? '' }), ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return trackProcess(child, `http://127.0.0.1:${port}`);
}

/** A spawned process serving at `url`, its output collected; `onExit` runs when it has ended. */
export function trackProcess(child: ChildProcess, url: string, onExit?: () => void): ServerProcess {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      onExit?.();
      resolve(code);
    }),
  );
  return {
    child,
    url,
    exited,
    output: () => ({ stdout, stderr }),
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Spawns the server and waits until `/healthz` answers. */
export async function startServer(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  return untilHealthy(await spawnServer(env, options));
}

/** Waits until `/healthz` answers through `server`; stops it if it never does or it ends first. */
export async function untilHealthy(server: ServerProcess, timeoutMs = 60_000): Promise<ServerProcess> {
  const started = waitForHttp(`${server.url}/healthz`, timeoutMs);
  let result: 'up' | 'exited';
  try {
    result = await Promise.race([started.then(() => 'up' as const), server.exited.then(() => 'exited' as const)]);
  } catch (error) {
    // it never answered: stop it rather than leave it running after the test
    await server.stop();
    throw error;
  }
  if (result === 'exited') throw new Error(`the server exited while starting: ${server.output().stderr.trim()}`);
  return server;
}
