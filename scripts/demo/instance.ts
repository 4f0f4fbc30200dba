/**
 * One Manifold server process of the demo and the calls its administrator makes — the same
 * console/API calls a real deployment uses (no database access, no shortcuts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export class CallError extends Error {}

export interface InstanceOptions {
  key: string;
  siteName: string;
  host: string;
  port: number;
  dataDir: string;
  adminPassword: string;
  /** The node arguments that run the server (its bundle: `bundledNodeArgs()` of scripts/server-build.mjs). */
  serverArgs: string[];
  env?: Record<string, string>;
}

export class Instance {
  child: ChildProcess | undefined;
  exited: Promise<number | null> | undefined;
  private token: string | undefined;

  constructor(readonly options: InstanceOptions) {}

  get url(): string {
    return `http://${this.options.host}:${this.options.port}`;
  }

  /** Starts the server (its log in DATA_DIR/server.log) and waits until `/healthz` answers. */
  async start(timeoutMs = 120_000): Promise<void> {
    fs.mkdirSync(this.options.dataDir, { recursive: true });
    const log = fs.openSync(path.join(this.options.dataDir, 'server.log'), 'a');
    this.child = spawn(process.execPath, this.options.serverArgs, {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: this.options.dataDir,
        DATABASE_URL: `sqlite:${path.join(this.options.dataDir, 'manifold.db')}`,
        HOST: this.options.host,
        PORT: String(this.options.port),
        PUBLIC_URL: this.url,
        SITE_NAME: this.options.siteName,
        ADMIN_USERNAME: 'admin',
        ADMIN_PASSWORD: this.options.adminPassword,
        COOKIE_SECURE: 'false',
        PEER_ALLOWED_HOSTS: '127.0.0.0/8,::1',
        LOG_LEVEL: 'warn',
        JOBS_POLL_MS: '500',
        OUTBOX_RETRY_BASE_MS: '1000',
        OUTBOX_RETRY_MAX_MS: '15000',
        ...this.options.env,
      },
      stdio: ['ignore', log, log],
      // its own process group: Ctrl-C in the terminal reaches only the demo, which stops the
      // machines first (they report offline) and then each server
      detached: true,
    });
    fs.closeSync(log);
    const child = this.child;
    process.once('exit', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    let gone = false;
    void this.exited.then(() => (gone = true));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (gone)
        throw new Error(`${this.options.siteName} exited while starting; see ${path.join(this.options.dataDir, 'server.log')}`);
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.options.siteName} did not answer within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** SIGTERM, then the exit code; SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<number | null> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return this.child?.exitCode ?? null;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    const code = await this.exited!;
    clearTimeout(timer);
    return code;
  }

  private async login(): Promise<string> {
    const response = await fetch(`${this.url}/ui/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: this.options.adminPassword }),
    });
    if (!response.ok) throw new CallError(`${this.options.siteName}: admin login failed (${response.status})`);
    return ((await response.json()) as { sessionToken: string }).sessionToken;
  }

  /** An administrator's call: JSON (or a form), answered JSON; anything but 200 throws. */
  async call<T = Record<string, unknown>>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    this.token ??= await this.login();
    const isForm = body instanceof FormData;
    const send = () =>
      fetch(`${this.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: isForm ? body : JSON.stringify(body) } : {}),
      });
    let response = await send();
    if (response.status === 401) {
      this.token = await this.login();
      response = await send();
    }
    const text = await response.text();
    if (response.status !== 200)
      throw new CallError(`${this.options.siteName} ${method} ${url}: ${response.status} ${text.slice(0, 400)}`);
    return JSON.parse(text) as T;
  }

  /** Every row of a paged list. */
  async all<T>(url: string): Promise<T[]> {
    const rows: T[] = [];
    for (let pageNum = 1; ; pageNum += 1) {
      const page = await this.call<{ data: T[]; totalNumOfPages: number }>(
        'GET',
        `${url}${url.includes('?') ? '&' : '?'}pageNum=${pageNum}&numberOfItems=500`,
      );
      rows.push(...page.data);
      if (pageNum >= page.totalNumOfPages) return rows;
    }
  }

  /** A multipart form of fields and one file (fields first, as the upload routes require). */
  static form(fields: Record<string, string>, file: { name: string; content: Buffer; type?: string }): FormData {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([file.content], { type: file.type ?? 'application/octet-stream' }), file.name);
    return form;
  }
}
