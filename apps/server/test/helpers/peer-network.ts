import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TManageInstance } from '@manifold/contract';
import type { DevelopmentCa } from '../../src/crypto/development-ca.js';
import { multipartForm } from './multipart.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';
import { adminPassword, type TestApp } from './test-app.js';
import { issue, testRoot } from './test-pki.js';

/** The allow-list every peer test runs with: instances on this machine only. */
export const LOOPBACK_PEERS = '127.0.0.0/8,::1';

interface Answer {
  statusCode: number;
  body: string;
  json(): unknown;
}

/** A call as an admin to one instance: an in-process test app or a server process. */
export type AdminCall = (
  method: 'GET' | 'POST',
  url: string,
  options?: { body?: unknown; headers?: Record<string, string> },
) => Promise<Answer>;

/**
 * Provisions an instance into the test network: EC keys, both CSRs signed by `root`, and `root`
 * as its trust anchor, so every instance provisioned with the same root trusts the others.
 * Answers the instance's signing certificate.
 */
export async function joinNetwork(call: AdminCall, root: DevelopmentCa): Promise<string> {
  const ok = async (answer: Promise<Answer>) => {
    const response = await answer;
    expect(response.statusCode, response.body).toBe(200);
    return response;
  };
  await ok(call('POST', '/ui/admin/provision', { body: { keyType: 'EC' } }));
  const csrs = (await ok(call('GET', '/ui/admin/provision?csr=both&service=manage'))).json() as {
    signingCSR: string;
    encryptionCSR: string;
  };
  const upload = (certificateType: string, content: string) => {
    const { body, headers } = multipartForm({ certificateType, file: { filename: `${certificateType}.pem`, content } });
    return ok(call('POST', '/ui/admin/upload/provision', { body, headers }));
  };
  await upload('trustAnchor', root.certificatePem);
  const signing = await issue(root, csrs.signingCSR);
  await upload('signing', signing);
  await upload('encryption', await issue(root, csrs.encryptionCSR));
  return signing;
}

/** A server process of its own (SQLite in a fresh DATA_DIR) that may call loopback peers. */
export async function startPeer(siteName: string, env: Record<string, string> = {}): Promise<PeerProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-peer-'));
  const server = await startServer({
    DATA_DIR: dataDir,
    SITE_NAME: siteName,
    ADMIN_USERNAME: 'admin',
    ADMIN_PASSWORD: adminPassword,
    LOG_LEVEL: 'warn',
    LOGIN_SLOWDOWN_MS: '0',
    COOKIE_SECURE: 'false',
    PEER_ALLOWED_HOSTS: LOOPBACK_PEERS,
    CONSOLE_DIR: path.join(dataDir, 'no-console'),
    ...env,
  });
  const login = await fetch(`${server.url}/ui/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: adminPassword }),
  });
  const { sessionToken } = (await login.json()) as { sessionToken: string };
  const call: AdminCall = async (method, url, options = {}) => {
    const isJson = options.body !== undefined && !Buffer.isBuffer(options.body) && typeof options.body !== 'string';
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${sessionToken}`,
        ...(isJson ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: isJson ? JSON.stringify(options.body) : (options.body as string | Buffer) } : {}),
    });
    const body = await response.text();
    return { statusCode: response.status, body, json: () => JSON.parse(body) as unknown };
  };
  return {
    server,
    url: server.url,
    call,
    stop: async () => {
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PeerProcess {
  server: ServerProcess;
  url: string;
  call: AdminCall;
  stop(): Promise<void>;
}

/**
 * The peer of a suite whose app (one database at a time) works with one server process: a network
 * root, the process (SQLite) provisioned into it, and the port the app listens on so the peer can
 * call it back. Until the module's `beforeAll` has started the peer, only the local port and URL
 * are there.
 */
export interface SuitePeer {
  readonly localPort: number;
  readonly localUrl: string;
  readonly root: DevelopmentCa;
  readonly url: string;
  /** The peer's signing certificate. */
  readonly signing: string;
  call: AdminCall;
}

/**
 * Registers the module's hooks that start the suite's peer (`siteName`, provisioned by a root of
 * `rootName`) before its tests and stop it after them.
 */
export async function suitePeer(rootName: string, siteName: string, env: Record<string, string> = {}): Promise<SuitePeer> {
  const localPort = await freePort();
  let started: { root: DevelopmentCa; process: PeerProcess; signing?: string } | undefined;
  const running = () => {
    if (started?.signing === undefined) throw new Error(`${siteName} is not started yet (it starts in beforeAll)`);
    return { ...started, signing: started.signing };
  };
  beforeAll(async () => {
    const root = await testRoot(rootName);
    started = { root, process: await startPeer(siteName, env) };
    started.signing = await joinNetwork(started.process.call, root);
  }, 120_000);
  afterAll(async () => {
    await started?.process.stop();
  });
  return {
    localPort,
    localUrl: `http://127.0.0.1:${localPort}`,
    get root() {
      return running().root;
    },
    get url() {
      return running().process.url;
    },
    get signing() {
      return running().signing;
    },
    call: (method, url, options) => running().process.call(method, url, options),
  };
}

/**
 * Provisions the suite's app into the peer's network and has it listen on the local port.
 * Answers an admin's token and a USER's.
 */
export async function joinWithApp(ctx: TestApp, peer: SuitePeer): Promise<{ admin: string; user: string }> {
  const admin = await ctx.adminToken();
  const user = (await ctx.createUser()).token;
  await joinNetwork((method, url, options = {}) => ctx.call(method, url, { token: admin, ...options }), peer.root);
  await ctx.app.listen({ port: peer.localPort, host: '127.0.0.1' });
  return { admin, user };
}

/**
 * The app registers the peer as its downstream Manage and the peer approves: the registration as
 * the app holds it (`ours`) and as the peer holds it (`theirs`).
 */
export async function registerDownstream(
  ctx: TestApp,
  admin: string,
  peer: Pick<SuitePeer, 'url' | 'call'>,
): Promise<{ ours: TManageInstance; theirs: TManageInstance }> {
  const added = await ctx.call('POST', '/ui/manage/add', { token: admin, body: { manageUrl: peer.url } });
  expect(added.statusCode, added.body).toBe(200);
  const ours = added.json<TManageInstance>();
  const list = (await peer.call('GET', '/ui/manage/list?registrationType=upStreamManage')).json() as {
    data: TManageInstance[];
  };
  const theirs = list.data.find((entry) => entry.registrationNonce === ours.registrationNonce)!;
  const approved = await peer.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } });
  expect(approved.statusCode, approved.body).toBe(200);
  return { ours, theirs };
}

/**
 * Fast retries and polls, so a peer that comes back is reached within a second or two; with
 * retries that fast the default 20 attempts would give a message up while a killed peer restarts
 * on a loaded machine, so the tests allow the most.
 */
export const FAST_DELIVERY = {
  JOBS_POLL_MS: '100',
  OUTBOX_RETRY_BASE_MS: '300',
  OUTBOX_RETRY_MAX_MS: '1500',
  OUTBOX_MAX_ATTEMPTS: '1000',
};

/** A call that must answer 200; its JSON. */
export async function okCall<T = Record<string, unknown>>(
  peer: Pick<PeerProcess, 'call'>,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<T> {
  const answer = await peer.call(method, url, body === undefined ? {} : { body });
  expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
  return answer.json() as T;
}

interface Registration {
  id: string;
  registrationState: string;
  initiator: boolean;
}

/**
 * `asker` registers with `approver` through the admin calls — as its downstream Manage
 * (`manage/add`) or as an instance reporting to it (`trace/add`) — and the approver, the side that
 * did not ask, approves. Answers both sides' registration ids.
 */
export async function registerAndApprove(
  asker: PeerProcess,
  approver: PeerProcess,
  kind: 'downStreamManage' | 'trace',
): Promise<{ askerId: string; approverId: string }> {
  const manage = kind === 'downStreamManage';
  const list = async (peer: PeerProcess): Promise<Registration[]> => {
    const page = await okCall<{ data: Record<string, unknown>[] }>(
      peer,
      'GET',
      manage ? '/ui/manage/list?registrationType=all&numberOfItems=500' : '/ui/trace/list?numberOfItems=500',
    );
    return page.data.map((entry) => ({
      id: String(manage ? entry.manageId : entry.id),
      registrationState: String(entry.registrationState),
      initiator: entry.initiator === true,
    }));
  };
  const before = new Set((await list(approver)).map((entry) => entry.id));
  const added = await okCall<Record<string, unknown>>(
    asker,
    'POST',
    manage ? '/ui/manage/add' : '/ui/trace/add',
    manage ? { registrationType: 'downStreamManage', manageUrl: approver.url } : { traceUrl: approver.url },
  );
  const asked = (await list(approver)).filter((entry) => !before.has(entry.id));
  expect(asked.map(({ registrationState, initiator }) => ({ registrationState, initiator }))).toEqual([
    { registrationState: 'Pending', initiator: false },
  ]);
  const approverId = asked[0]!.id;
  await okCall(approver, 'POST', manage ? '/ui/manage/approve' : '/ui/trace/approve', { id: approverId, approve: true });
  return { askerId: String(manage ? added.manageId : added.id), approverId };
}
