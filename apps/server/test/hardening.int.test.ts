import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { addOrder, policyFor, suiteLicensingWorld } from './helpers/licensing-fixtures.js';
import { buildUserInput, describeEachDatabase, expectToken } from './helpers/test-app.js';
import { type ServerProcess, spawnServer, startServer } from './helpers/server-process.js';

const adminPassword = 'Admin-password-1';

/** Opens a raw connection; `received()` is everything the server sent, `closed` resolves when it hangs up. */
function connect(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => {
    const opened = Date.now();
    socket.on('close', () => resolve(Date.now() - opened));
  });
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, ready, closed, received: () => data };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the milliseconds until the server closed, or null if it still holds on after `limitMs`. */
async function closedWithin(closed: Promise<number>, limitMs: number): Promise<number | null> {
  return Promise.race([closed, sleep(limitMs).then(() => null)]);
}

describe('a real server process under hostile clients', () => {
  let server: ServerProcess;
  let dataDir: string;
  let token: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-hardening-'));
    server = await startServer({
      DATA_DIR: path.join(dataDir, 'data'),
      ADMIN_PASSWORD: adminPassword,
      CONSOLE_DIR: path.join(dataDir, 'none'),
      LOG_LEVEL: 'silent',
      HEADERS_TIMEOUT_SECONDS: '2',
      BODY_TIMEOUT_SECONDS: '2',
      KEEP_ALIVE_TIMEOUT_SECONDS: '1',
      UPLOAD_MAX_BYTES: '4096',
    });
    const login = await fetch(`${server.url}/ui/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: adminPassword }),
    });
    token = ((await login.json()) as { sessionToken: string }).sessionToken;
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates its data folder, database, write-ahead log and key files readable by its own user only', async () => {
    const data = path.join(dataDir, 'data');
    expect((await fs.stat(data)).mode & 0o777).toBe(0o700);
    for (const name of ['manifold.db', 'manifold.db-wal', 'manifold.db-shm', 'key-encryption.key']) {
      expect({ name, mode: (await fs.stat(path.join(data, name))).mode & 0o777 }).toEqual({ name, mode: 0o600 });
    }
  });

  it('answers headers that are too large with the spec error body (431)', async () => {
    const response = await fetch(`${server.url}/ui/user/login`, { headers: { 'x-padding': 'a'.repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(await response.json()).toEqual({
      errorToken: 'malformedRequest',
      errorDescription: 'The request headers are too large',
    });
  });

  it('cuts off request headers dribbled in', async () => {
    const client = connect(server.url);
    await client.ready;
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const dribble = setInterval(() => client.socket.write('X-a: b\r\n'), 500);
    try {
      expect(await closedWithin(client.closed, 8_000)).not.toBeNull();
    } finally {
      clearInterval(dribble);
      client.socket.destroy();
    }
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const client = connect(server.url);
    await client.ready;
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const closedAfter = await closedWithin(client.closed, 5_000);
    client.socket.destroy();
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter!).toBeGreaterThanOrEqual(900);
  });

  it('cuts off a JSON body dribbled in one byte at a time', async () => {
    const client = connect(server.url);
    await client.ready;
    client.socket.write(
      'POST /ui/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const dribble = setInterval(() => client.socket.write(' '), 300);
    try {
      expect(await closedWithin(client.closed, 8_000)).not.toBeNull();
    } finally {
      clearInterval(dribble);
      client.socket.destroy();
    }
  });

  it('closes the connection after refusing an upload, so the next request is never stuck behind its unread body', async () => {
    const client = connect(server.url);
    await client.ready;
    const boundary = 'x1234';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.json"\r\nContent-Type: application/json\r\n\r\n${'a'.repeat(200_000)}\r\n--${boundary}--\r\n`;
    client.socket.write(
      `POST /ui/order/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    client.socket.write(body);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const closedAfter = await closedWithin(client.closed, 2_000);
    client.socket.destroy();
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.received().toLowerCase()).toContain('connection: close');
    expect(closedAfter).not.toBeNull();
  });

  it('keeps the connection open after a request whose body it read whole', async () => {
    const client = connect(server.url);
    await client.ready;
    const body = JSON.stringify({ username: 'nobody-here', password: 'wrong-password-1' });
    client.socket.write(
      `POST /ui/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const closedAfter = await closedWithin(client.closed, 1_500);
    client.socket.destroy();
    const answers = client.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 420', 'HTTP/1.1 200']);
    expect(client.received().toLowerCase()).not.toContain('connection: close');
    expect(closedAfter).toBeNull();
  });

  it('closes the connection after a 401 on an upload whose body it never read', async () => {
    const client = connect(server.url);
    await client.ready;
    client.socket.write(
      'POST /ui/order/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n',
    );
    const closedAfter = await closedWithin(client.closed, 1_000);
    client.socket.destroy();
    expect(client.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(closedAfter).not.toBeNull();
  });

  it('sends security headers on the API and no-store on its replies', async () => {
    const response = await fetch(`${server.url}/ui/user/login`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    // an API reply is never a page: nothing in it may load, run or be framed
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    // plain http: no HSTS
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('a server behind a proxy it was not told about', () => {
  it('warns once when requests carry forwarding headers but TRUST_PROXY is off', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-proxy-'));
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', CONSOLE_DIR: path.join(dataDir, 'none') });
    try {
      await fetch(`${server.url}/healthz`);
      expect(server.output().stdout).not.toContain('TRUST_PROXY is off');
      for (let i = 0; i < 3; i++) await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(server.output().stdout.split('TRUST_PROXY is off')).toHaveLength(2);
    } finally {
      expect(await server.stop()).toBe(0);
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('crash leftovers', () => {
  it('removes the temporary file of an upload killed with -9 and an object left without a row, at the next start', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-crash-'));
    const env = {
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'silent',
      CONSOLE_DIR: path.join(dataDir, 'none'),
      STORAGE_SWEEP_GRACE_SECONDS: '1',
      STORAGE_TEMP_GRACE_SECONDS: '1',
    };
    const tmp = path.join(dataDir, 'storage', 'tmp');
    let server = await startServer(env);
    try {
      const login = await fetch(`${server.url}/ui/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: adminPassword }),
      });
      const auth = { authorization: `Bearer ${((await login.json()) as { sessionToken: string }).sessionToken}` };
      const created = await fetch(`${server.url}/ui/package/info`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ designName: 'Crash test', description: 'x', companyName: 'Acme' }),
      });
      const { dsiId } = (await created.json()) as { dsiId: string };
      const form = new FormData();
      form.set('dsiId', dsiId);
      form.set('isPublic', 'true');
      form.set('file', new Blob([Buffer.from('kept bytes')]), 'kept.stl');
      const kept = await fetch(`${server.url}/ui/package/files/upload`, { method: 'POST', headers: auth, body: form });
      expect(kept.status).toBe(200);
      const { fileId } = (await kept.json()) as { fileId: string };

      // an upload of 64 MiB, killed with -9 after 8 MiB
      const client = connect(server.url);
      await client.ready;
      const boundary = 'crashboundary';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="dsiId"\r\n\r\n${dsiId}\r\n--${boundary}\r\nContent-Disposition: form-data; name="isPublic"\r\n\r\ntrue\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.stl"\r\nContent-Type: application/octet-stream\r\n\r\n`;
      client.socket.write(
        `POST /ui/package/files/upload HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 64 * 1024 * 1024}\r\n\r\n${head}`,
      );
      for (let i = 0; i < 8; i += 1) client.socket.write(Buffer.alloc(1024 * 1024, 7));
      const deadline = Date.now() + 20_000;
      let partial: string | undefined;
      while (!partial && Date.now() < deadline) {
        for (const name of await fs.readdir(tmp)) {
          if ((await fs.stat(path.join(tmp, name))).size > 1024 * 1024) partial = name;
        }
        if (!partial) await sleep(100);
      }
      expect(partial).toBeDefined();
      server.child.kill('SIGKILL');
      await server.exited;
      client.socket.destroy();

      // what a crash between writing an object and committing its row leaves behind
      const orphanKey = 'ab' + 'c'.repeat(30);
      await fs.mkdir(path.join(dataDir, 'storage', 'ab'), { recursive: true });
      await fs.writeFile(path.join(dataDir, 'storage', 'ab', orphanKey), 'no row refers to me');
      expect((await fs.readdir(tmp)).length).toBeGreaterThan(0);
      await sleep(1500);

      server = await startServer(env);
      const swept = Date.now() + 20_000;
      while (
        Date.now() < swept &&
        ((await fs.readdir(tmp)).length > 0 || (await fs.readdir(path.join(dataDir, 'storage', 'ab'))).length > 0)
      ) {
        await sleep(200);
      }
      expect(await fs.readdir(tmp)).toEqual([]);
      expect(await fs.readdir(path.join(dataDir, 'storage', 'ab'))).toEqual([]);
      const download = await fetch(`${server.url}/ui/package/files/download?fileId=${fileId}`, { headers: auth });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('kept bytes');
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('start-up refusals on private files', () => {
  it('refuses to start on a database file other users can read, naming the fix', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-modes-'));
    try {
      const file = path.join(dataDir, 'manifold.db');
      await fs.writeFile(file, '');
      await fs.chmod(file, 0o644);
      const server = await spawnServer({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', CONSOLE_DIR: path.join(dataDir, 'none') });
      try {
        expect(await server.exited).toBe(1);
      } finally {
        server.child.kill('SIGKILL');
      }
      expect(server.output().stderr.trim().split('\n')).toEqual([
        `manifold: cannot start: ${file} is open to other users (mode 644): run "chmod 600 ${file}" and start again`,
      ]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describeEachDatabase(
  'security headers and durability settings',
  (ctx) => {
    it('sends HSTS when the canonical address is https', async () => {
      const response = await ctx().call('GET', '/healthz');
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });

    it('syncs SQLite commits fully by default', async () => {
      if (ctx().kind !== 'sqlite') return;
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(ctx().app.services.database.db);
      expect(rows[0]?.synchronous).toBe(2);
    });
  },
  { PUBLIC_URL: 'https://manifold.example.com' },
);

describeEachDatabase(
  'the documented speed-over-durability setting',
  (ctx) => {
    it('uses synchronous=NORMAL on SQLite when SQLITE_SYNCHRONOUS=NORMAL', async () => {
      if (ctx().kind !== 'sqlite') return;
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(ctx().app.services.database.db);
      expect(rows[0]?.synchronous).toBe(1);
    });
  },
  { SQLITE_SYNCHRONOUS: 'NORMAL' },
);

describeEachDatabase('names that cannot impersonate, strings without NUL, passwords nobody guesses', (ctx) => {
  const add = async (overrides: Record<string, unknown>) =>
    ctx().call('POST', '/ui/user/add', { token: await ctx().adminToken(), body: { ...buildUserInput(), ...overrides } });

  it.each([
    ['a zero-width space', 'ad\u200bmin2'],
    ['a right-to-left override', 'evil\u202eexe.txt'],
    ['markup', '<b>bold</b>'],
    ['a space', 'two words'],
  ])('refuses a username with %s', async (_what, username) => {
    const response = await add({ username });
    expect(response.statusCode).toBe(420);
    expect(response.json()).toMatchObject({ errorToken: 'usernameInvalid', field: 'username' });
  });

  it('refuses a username with a control character XML cannot carry, naming the field', async () => {
    const response = await add({ username: 'esc\u001bape' });
    expect(response.statusCode).toBe(420);
    expect(response.json()).toMatchObject({ errorToken: 'invalidCharacters', field: 'username' });
  });

  it('refuses a username whose confusable skeleton matches an existing one', async () => {
    for (const username of ['\u0430dmin', 'ADMIN', '\uff41\uff44\uff4d\uff49\uff4e']) {
      const response = await add({ username });
      expect(response.statusCode, username).toBe(420);
      expect(response.json()).toMatchObject({ errorToken: 'usernameTaken', field: 'username' });
    }
  });

  it('stores the NFKC form of a username typed in full-width letters', async () => {
    const response = await add({ username: '\uff4e\uff46\uff4b\uff43' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ username: 'nfkc' });
  });

  it('refuses NUL in any string, signed in or not, with a 400 and no change', async () => {
    const login = await ctx().call('POST', '/ui/user/login', { body: { username: 'admin\u0000', password: 'x' } });
    expect(login.statusCode).toBe(400);
    expect(login.json()).toEqual({
      errorToken: 'malformedRequest',
      errorDescription: 'username contains a NUL character',
      field: 'username',
    });
    const token = await ctx().adminToken();
    const before = (await ctx().call('GET', '/ui/user/list?numberOfItems=100', { token })).json().totalNumOfItems;
    const added = await add({ firstName: 'Nul\u0000l' });
    expect(added.statusCode).toBe(400);
    expect((await ctx().call('GET', '/ui/user/list?numberOfItems=100', { token })).json().totalNumOfItems).toBe(before);
    const search = await ctx().call('GET', '/ui/user/list?search=%00', { token });
    expect(search.statusCode).toBe(400);
    expect(search.json()).toEqual({
      errorToken: 'malformedRequest',
      errorDescription: 'querystring.search contains a NUL character',
    });
  });

  it('refuses common and breached passwords', async () => {
    for (const password of ['password123', 'Qwerty123', 'iloveyou']) {
      const response = await add({ password });
      expect(response.statusCode, password).toBe(420);
      expect(response.json()).toMatchObject({ errorToken: 'passwordTooCommon', field: 'password' });
    }
  });
});

describeEachDatabase('text that signed documents cannot carry', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  it.each([
    ['NUL', 'a\u0000b', 400],
    ['U+0001', 'a\u0001b', 420],
    ['ESC', '\u001b[31mred', 420],
    ['U+FFFE', 'a\uFFFEb', 420],
    ['a lone surrogate', 'a\uD800b', 420],
  ])('refuses %s in a tracking value before any quantity is taken', async (_what, fieldValue, status) => {
    const orderId = await addOrder(ctx(), policyFor(world, { quantity: 5 }));
    const token = await ctx().adminToken();
    const response = await ctx().call('POST', '/ui/authorization/authorize', {
      token,
      body: { orderId, deviceId: world.deviceId, quantity: 2, tracking: [{ fieldName: 'lot', fieldValue }] },
    });
    expect(response.statusCode).toBe(status);
    if (status === 420)
      expect(response.json()).toMatchObject({ errorToken: 'invalidCharacters', field: 'tracking[0].fieldValue' });
    const order = (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token })).json();
    expect(order.remainingQuantity ?? order.order?.remainingQuantity).toBe(5);
  });

  it('refuses a body nested deeper than 32 levels on any route, signed in or not, with 400 malformedRequest', async () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const token = await ctx().adminToken();
    // written by hand: a value nested far past the stack of any recursive walk (a signature's canonical JSON)
    for (const [url, signedIn] of [
      ['/apl/registration/add', false],
      ['/stp/authorization/list', false],
      ['/apl/order/add', false],
      ['/ui/order/add', true],
    ] as const) {
      for (const depth of [33, 100_000]) {
        const response = await ctx().app.inject({
          method: 'POST',
          url,
          payload: `{"apl":{"note":${nested(depth)}}}`,
          headers: { 'content-type': 'application/json', ...(signedIn ? { authorization: `Bearer ${token}` } : {}) },
        });
        expect(response.statusCode, `${url} ${depth}: ${response.body}`).toBe(400);
        expect(response.json(), url).toEqual({
          errorToken: 'malformedRequest',
          errorDescription: 'body nests more than 32 levels deep',
          field: 'body',
        });
      }
    }
    // as deep as allowed: the route's own checks answer
    const allowed = await ctx().app.inject({
      method: 'POST',
      url: '/ui/order/add',
      payload: `{"apl":{"note":${nested(31)}}}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expectToken(allowed, 420, 'authorizedPolicyListNotFormattedCorrectly', 'authorizationAuthorizedPolicyList');
  });

  it('refuses such characters in an order arriving as JSON, naming the field', async () => {
    const response = await ctx().call('POST', '/ui/order/add', {
      token: await ctx().adminToken(),
      body: { authorizationAuthorizedPolicyList: policyFor(world, { purpose: 'bell\u0007' }) },
    });
    expect(response.statusCode).toBe(420);
    expect(response.json()).toMatchObject({
      errorToken: 'invalidCharacters',
      field: 'authorizationAuthorizedPolicyList.purpose',
    });
  });
});
