import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressAllowed,
  DEFAULT_PEER_HTTP_LIMITS,
  isInternalAddress,
  parsePeerHostPolicy,
  parsePeerUrl,
  peerEndpoint,
  peerRequest,
  type PeerHttpConfig,
} from './http-client.js';

type Handler = (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void;

let server: http.Server;
let port: number;
let handler: Handler;
const seen: { method?: string; url?: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const loopback: PeerHttpConfig = { ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('127.0.0.0/8') };
const at = (path: string, host = '127.0.0.1') => new URL(`http://${host}:${port}${path}`);

describe('parsePeerHostPolicy and the address checks', () => {
  it('reads names, suffixes, addresses and ranges, and refuses nonsense', () => {
    const policy = parsePeerHostPolicy('manage.example.com, *.peers.example.org 10.1.2.3 192.168.0.0/16,::1');
    expect(policy.names).toEqual(['manage.example.com']);
    expect(policy.suffixes).toEqual(['peers.example.org']);
    expect(addressAllowed(policy, '10.1.2.3', '10.1.2.3')).toBe(true);
    expect(addressAllowed(policy, 'x', '192.168.44.5')).toBe(true);
    expect(addressAllowed(policy, 'x', '::1')).toBe(true);
    expect(addressAllowed(policy, 'x', '::ffff:192.168.1.1')).toBe(true);
    expect(addressAllowed(policy, 'a.peers.example.org', '93.184.216.34')).toBe(true);
    expect(addressAllowed(policy, 'peers.example.org', '93.184.216.34')).toBe(false);
    // A named host that resolves to an internal address is still refused.
    expect(addressAllowed(policy, 'manage.example.com', '127.0.0.1')).toBe(false);
    expect(addressAllowed(policy, 'manage.example.com', '169.254.169.254')).toBe(false);
    expect(addressAllowed(policy, 'other.example.com', '93.184.216.34')).toBe(false);
    for (const bad of ['10.0.0.0/33', 'exa mple..com', 'http://x', '::1/200']) {
      expect(() => parsePeerHostPolicy(bad)).toThrow(/not/);
    }
  });

  it('treats loopback, private, link-local, metadata and mapped addresses as internal', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.5',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ]) {
      expect(isInternalAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
  });

  it('allows only public hosts with *', () => {
    const policy = parsePeerHostPolicy('*');
    expect(addressAllowed(policy, 'anything.example', '93.184.216.34')).toBe(true);
    expect(addressAllowed(policy, 'anything.example', '10.0.0.1')).toBe(false);
    expect(() => parsePeerUrl('http://169.254.169.254/latest/meta-data', policy)).toThrow(/outside PEER_ALLOWED_HOSTS/);
  });
});

describe('parsePeerUrl', () => {
  it('answers the base address without a trailing slash', () => {
    expect(parsePeerUrl(`http://127.0.0.1:${port}/manage/`, loopback.allowedHosts).href).toBe(`http://127.0.0.1:${port}/manage`);
    expect(
      peerEndpoint(parsePeerUrl(`http://127.0.0.1:${port}/m/`, loopback.allowedHosts), '/apl/registration/add').pathname,
    ).toBe('/m/apl/registration/add');
  });

  it('refuses with httpClientBadUrl what is not a plain http(s) address inside the allow-list', () => {
    const refused = [
      'not an address',
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      'http://user:secret@127.0.0.1/',
      'http://127.0.0.1/?next=x',
      'http://10.0.0.1/',
      'http://[::1]/',
      'http://169.254.169.254/',
    ];
    for (const raw of refused) {
      expect(() => parsePeerUrl(raw, loopback.allowedHosts), raw).toThrow(expect.objectContaining({ token: 'httpClientBadUrl' }));
    }
    expect(() => parsePeerUrl('http://127.0.0.1/', parsePeerHostPolicy(''))).toThrow(/PEER_ALLOWED_HOSTS is empty/);
  });
});

describe('peerRequest', () => {
  it('posts JSON and answers status, headers and text', async () => {
    handler = (_request, body, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-peer': 'yes' });
      response.end(JSON.stringify({ echo: JSON.parse(body) }));
    };
    seen.length = 0;
    const answer = await peerRequest(loopback, { method: 'POST', url: at('/apl/x'), body: { a: 1 } });
    expect(answer.status).toBe(201);
    expect(answer.headers['x-peer']).toBe('yes');
    expect(JSON.parse(answer.text)).toEqual({ echo: { a: 1 } });
    expect(seen).toEqual([{ method: 'POST', url: '/apl/x', body: '{"a":1}' }]);
  });

  it('keeps the connection alive between calls; a reused connection still has the read timeout', async () => {
    const policy: PeerHttpConfig = { ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('127.0.0.0/8') };
    let connections = 0;
    const counted = () => (connections += 1);
    server.on('connection', counted);
    try {
      handler = (_request, _body, response) => response.end('ok');
      expect((await peerRequest(policy, { method: 'POST', url: at('/one'), body: { n: 1 } })).text).toBe('ok');
      expect((await peerRequest(policy, { method: 'POST', url: at('/two'), body: { n: 2 } })).text).toBe('ok');
      expect(connections).toBe(1);
      handler = () => undefined;
      await expect(peerRequest({ ...policy, readTimeoutMs: 150 }, { method: 'GET', url: at('/silent') })).rejects.toMatchObject({
        failure: 'timeout',
        message: expect.stringContaining('no answer within 150 ms'),
      });
      expect(connections).toBe(1);
      // the timed-out connection is not reused
      handler = (_request, _body, response) => response.end('again');
      expect((await peerRequest(policy, { method: 'GET', url: at('/again') })).text).toBe('again');
      expect(connections).toBe(2);
    } finally {
      server.off('connection', counted);
    }
  });

  it('reaches a host name only through the addresses it resolves to', async () => {
    handler = (_request, _body, response) => response.end('ok');
    expect((await peerRequest(loopback, { method: 'GET', url: at('/', 'localhost') })).text).toBe('ok');
    const namesOnly: PeerHttpConfig = { ...loopback, allowedHosts: parsePeerHostPolicy('localhost') };
    await expect(peerRequest(namesOnly, { method: 'GET', url: at('/', 'localhost') })).rejects.toMatchObject({
      token: 'httpClientBadUrl',
      message: expect.stringContaining('resolves to an address outside PEER_ALLOWED_HOSTS'),
    });
  });

  it('fails with timeout when the peer does not answer within the read timeout', async () => {
    handler = () => undefined;
    const started = Date.now();
    await expect(peerRequest({ ...loopback, readTimeoutMs: 150 }, { method: 'GET', url: at('/slow') })).rejects.toMatchObject({
      failure: 'timeout',
      message: expect.stringContaining('no answer within 150 ms'),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails with timeout when a body trickles in slower than the read timeout', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('x'), 50);
      response.on('close', () => clearInterval(timer));
    };
    await expect(peerRequest({ ...loopback, readTimeoutMs: 300 }, { method: 'GET', url: at('/trickle') })).rejects.toMatchObject({
      failure: 'timeout',
    });
  });

  it('fails with timeout when the connection (TCP and TLS handshake) is not made within the connect timeout', async () => {
    // Accepts TCP and never speaks TLS: the handshake never completes.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    try {
      await expect(
        peerRequest({ ...loopback, connectTimeoutMs: 150 }, { method: 'GET', url: new URL(`https://127.0.0.1:${silentPort}/`) }),
      ).rejects.toMatchObject({ failure: 'timeout', message: expect.stringContaining('no connection within 150 ms') });
    } finally {
      await new Promise((resolve) => {
        silent.close(resolve);
        for (const socket of accepted) socket.destroy();
      });
    }
  });

  it('fails with tooLarge for an answer over the size limit, declared or streamed', async () => {
    const small: PeerHttpConfig = { ...loopback, maxResponseBytes: 1024 };
    handler = (_request, _body, response) => response.end('x'.repeat(4096));
    await expect(peerRequest(small, { method: 'GET', url: at('/big') })).rejects.toMatchObject({ failure: 'tooLarge' });
    handler = (_request, _body, response) => {
      response.writeHead(200);
      for (let i = 0; i < 8; i += 1) response.write('y'.repeat(512));
      response.end();
    };
    await expect(peerRequest(small, { method: 'GET', url: at('/chunked') })).rejects.toMatchObject({ failure: 'tooLarge' });
  });

  it('follows a redirect within the same origin and refuses one to another host', async () => {
    handler = (request, _body, response) => {
      if (request.url === '/old') {
        response.writeHead(308, { location: '/new' });
        return response.end();
      }
      if (request.url === '/away') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return response.end();
      }
      if (request.url === '/loop') {
        response.writeHead(307, { location: '/loop' });
        return response.end();
      }
      response.end(`at ${request.url}`);
    };
    expect((await peerRequest(loopback, { method: 'POST', url: at('/old'), body: {} })).text).toBe('at /new');
    await expect(peerRequest(loopback, { method: 'GET', url: at('/away') })).rejects.toMatchObject({
      failure: 'redirect',
      message: expect.stringContaining('another host'),
    });
    await expect(peerRequest(loopback, { method: 'GET', url: at('/loop') })).rejects.toMatchObject({ failure: 'redirect' });
  });

  it('refuses addresses outside the allow-list before connecting, and reports a closed port as unreachable', async () => {
    seen.length = 0;
    await expect(peerRequest(loopback, { method: 'GET', url: new URL('http://169.254.169.254/') })).rejects.toMatchObject({
      token: 'httpClientBadUrl',
    });
    await expect(
      peerRequest({ ...loopback, allowedHosts: parsePeerHostPolicy('') }, { method: 'GET', url: at('/') }),
    ).rejects.toMatchObject({ token: 'httpClientBadUrl' });
    expect(seen).toEqual([]);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(peerRequest(loopback, { method: 'GET', url: new URL(`http://127.0.0.1:${closedPort}/`) })).rejects.toMatchObject(
      {
        failure: 'unreachable',
      },
    );
  });
});
