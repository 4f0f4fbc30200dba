import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundledNodeArgs } from '../../scripts/server-build.mjs';

const root = path.resolve(import.meta.dirname, '../..');

export interface RunningServer {
  baseUrl: string;
  adminUsername: string;
  adminPassword: string;
  stop: () => Promise<void>;
}

/** The environment without Vitest's NODE_ENV=test, which would make Vite build React's development bundle. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const { NODE_ENV: _testEnv, ...environment } = process.env;
  return environment;
}

/** Builds the console when it is missing or older than its sources (the repository's own check). */
export function buildConsoleIfStale(): void {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/console-build.mjs')], {
    cwd: root,
    stdio: 'inherit',
    env: { ...cleanEnvironment(), NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error('the console build failed');
  if (!fs.existsSync(path.join(root, 'apps/console/dist/index.html'))) throw new Error('no built console in apps/console/dist');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}:\n${log()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the server did not answer /healthz in time:\n${log()}`);
}

/**
 * Starts the real server on a free port with a fresh data directory and a known admin password;
 * `env` adds to or overrides its environment (a second instance's `SITE_NAME`).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminUsername = 'admin';
  const adminPassword = `E2e-${Math.random().toString(36).slice(2)}-Admin`;
  let output = '';
  // as `npm start` runs it: the server's bundle, built first when stale (scripts/server-build.mjs)
  const server = spawn(process.execPath, bundledNodeArgs(), {
    cwd: root,
    env: {
      ...cleanEnvironment(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_USERNAME: adminUsername,
      ADMIN_PASSWORD: adminPassword,
      COOKIE_SECURE: 'false',
      PUBLIC_URL: baseUrl,
      DATABASE_URL: '',
      // The crypto wizard's browser test installs certificates from the development CA.
      DEVELOPMENT_CA: 'true',
      // The storage browser test selects emulated S3 and Azure services on loopback ports.
      STORAGE_ENDPOINT_ALLOWED_HOSTS: '127.0.0.0/8',
      // The single sign-on test runs its OpenID provider on a loopback port.
      PEER_ALLOWED_HOSTS: '127.0.0.1',
      // Security keys: browsers accept no IP address as relying-party id, so the security-key
      // test opens the console on http://localhost:<port> (also a secure context).
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGINS: `${baseUrl},http://localhost:${port}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  server.stdout?.on('data', collect);
  server.stderr?.on('data', collect);

  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(baseUrl, server, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, adminUsername, adminPassword, stop };
}
