import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import { AppError } from '../lib/app-error.js';

/**
 * Which peers this instance may call (`PEER_ALLOWED_HOSTS`, docs/configuration.md#peers).
 * Entries: `*` (any host whose addresses are all public), a host name (`manage.example.com`),
 * a name suffix (`*.example.com`), an IP address or a CIDR range (`127.0.0.0/8`, `::1`).
 * A name entry allows a host only while it resolves to public addresses; an internal address
 * (loopback, private, link-local, …) is reached only when an address or range entry covers it.
 */
export interface PeerHostPolicy {
  anyPublicHost: boolean;
  names: string[];
  suffixes: string[];
  addresses: net.BlockList;
  /** The entries as configured, for messages. */
  entries: string[];
}

export interface PeerHttpLimits {
  /** DNS, TCP and TLS until the request can be sent, ms. */
  connectTimeoutMs: number;
  /** From a connected socket until the whole answer has arrived, ms. */
  readTimeoutMs: number;
  /** Largest answer body read, bytes; a larger one is cut off. */
  maxResponseBytes: number;
}

export interface PeerHttpConfig extends PeerHttpLimits {
  allowedHosts: PeerHostPolicy;
}

export const DEFAULT_PEER_HTTP_LIMITS: PeerHttpLimits = {
  connectTimeoutMs: 5_000,
  readTimeoutMs: 15_000,
  maxResponseBytes: 1024 * 1024,
};

/** Same-origin redirects followed before the call fails. */
const MAX_REDIRECTS = 3;

/** Why an outbound call failed after its address was accepted; each caller maps it to its own token. */
export type PeerHttpFailure = 'timeout' | 'unreachable' | 'redirect' | 'tooLarge';

export class PeerHttpError extends Error {
  constructor(
    readonly failure: PeerHttpFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PeerHttpError';
  }
}

export interface PeerResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface PeerRequest {
  method: 'GET' | 'POST';
  url: URL;
  /**
   * Sent as JSON unless a string; a `Readable` is streamed as it is (chunked; give its
   * `content-type` in `headers`) and is not sent again on a redirect (the call fails instead).
   */
  body?: unknown;
  headers?: Record<string, string>;
  /** Overrides of the configured limits for this call (never looser than needed: tests, small answers). */
  limits?: Partial<PeerHttpLimits>;
}

/** Addresses no peer call reaches unless an address entry allows them. */
const internalAddresses = (() => {
  const list = new net.BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  const v6: [string, number][] = [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['2002::', 16],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ];
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return list;
})();

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. */
function normalizeAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  const version = net.isIP(bare);
  if (version === 4) return { address: bare, family: 'ipv4' };
  if (version === 6) return { address: bare.toLowerCase(), family: 'ipv6' };
  return null;
}

export function isInternalAddress(address: string): boolean {
  const normalized = normalizeAddress(address);
  return normalized ? internalAddresses.check(normalized.address, normalized.family) : true;
}

/** Parses `PEER_ALLOWED_HOSTS` (comma or space separated); throws an Error naming a bad entry. */
export function parsePeerHostPolicy(raw: string | undefined): PeerHostPolicy {
  const entries = (raw ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const policy: PeerHostPolicy = { anyPublicHost: false, names: [], suffixes: [], addresses: new net.BlockList(), entries };
  for (const entry of entries) {
    if (entry === '*') {
      policy.anyPublicHost = true;
      continue;
    }
    const range = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (range) {
      const normalized = normalizeAddress(range[1]!);
      const prefix = Number(range[2]);
      if (!normalized || prefix > (normalized.family === 'ipv4' ? 32 : 128)) throw new Error(`not an address range: "${entry}"`);
      policy.addresses.addSubnet(normalized.address, prefix, normalized.family);
      continue;
    }
    const address = normalizeAddress(entry);
    if (address) {
      policy.addresses.addAddress(address.address, address.family);
      continue;
    }
    const wildcard = entry.startsWith('*.');
    const name = wildcard ? entry.slice(2) : entry;
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(name)) {
      throw new Error(`not a host name, address or range: "${entry}"`);
    }
    (wildcard ? policy.suffixes : policy.names).push(name.replace(/\.$/, ''));
  }
  return policy;
}

function nameAllowed(policy: PeerHostPolicy, hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return (
    policy.anyPublicHost ||
    policy.names.includes(name) ||
    policy.suffixes.some((suffix) => name.endsWith(`.${suffix}`) && name.length > suffix.length + 1)
  );
}

/** Whether a connection to `address` (reached through `hostname`) is allowed. */
export function addressAllowed(policy: PeerHostPolicy, hostname: string, address: string): boolean {
  const normalized = normalizeAddress(address);
  if (!normalized) return false;
  if (policy.addresses.check(normalized.address, normalized.family)) return true;
  return nameAllowed(policy, hostname) && !internalAddresses.check(normalized.address, normalized.family);
}

const badUrl = (description: string) => new AppError('httpClientBadUrl', { description });

/**
 * Checks a peer's base address typed by an admin or received from a peer: http or https, no
 * credentials, a host the allow-list can allow. Answers the URL with no trailing slash on its
 * path; `httpClientBadUrl` otherwise.
 */
export function parsePeerUrl(raw: string, policy: PeerHostPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badUrl(`Not an address: "${raw.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badUrl(`Only http and https addresses are allowed, got ${url.protocol}`);
  }
  if (url.username || url.password) throw badUrl('Addresses with credentials are not allowed');
  if (url.search || url.hash) throw badUrl('A peer address has no query or fragment');
  const literal = normalizeAddress(url.hostname);
  const allowed = literal
    ? addressAllowed(policy, url.hostname, literal.address)
    : nameAllowed(policy, url.hostname) || policy.entries.length > 0;
  if (!allowed) throw notAllowed(url.hostname, policy);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

function notAllowed(host: string, policy: PeerHostPolicy): AppError {
  return badUrl(
    policy.entries.length === 0
      ? `Peer calls are disabled: PEER_ALLOWED_HOSTS is empty (asked for ${host})`
      : `${host} is outside PEER_ALLOWED_HOSTS`,
  );
}

/** JSON text parsed, or undefined when it is not JSON (a peer's answer, an uploaded record). */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A peer's base address as stored and shown: no trailing slash. */
export function peerBaseText(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

/** `base` + `path` (the peer's base address may carry a path prefix). */
export function peerEndpoint(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

/**
 * One outbound call to a peer. The address is checked against the allow-list before the call
 * and every resolved address again at connect time (a name that resolves to an internal address
 * is refused, which also defeats DNS rebinding); redirects are followed only within the same
 * origin; connect and read timeouts and the answer size are bounded. Failures: `httpClientBadUrl`
 * (an AppError: the address or where it leads is not allowed) or a `PeerHttpError`.
 */
export async function peerRequest(config: PeerHttpConfig, request: PeerRequest): Promise<PeerResponse> {
  const limits = { ...config, ...request.limits };
  let url = parsePeerUrlKeepingPath(request.url, config.allowedHosts);
  for (let redirects = 0; ; redirects += 1) {
    const response = await once(config.allowedHosts, limits, { ...request, url });
    if (response.status < 300 || response.status > 399 || response.status === 304) return response;
    const location = response.headers.location;
    if (!location) return response;
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new PeerHttpError('redirect', `${url.origin} redirected to an invalid address`);
    }
    if (next.origin !== url.origin) {
      throw new PeerHttpError('redirect', `${url.origin} redirected to another host (${next.origin})`);
    }
    if (redirects + 1 > MAX_REDIRECTS)
      throw new PeerHttpError('redirect', `${url.origin} redirected more than ${MAX_REDIRECTS} times`);
    if (request.body instanceof Readable) {
      throw new PeerHttpError('redirect', `${url.origin} redirected a streamed upload (${response.status})`);
    }
    if (request.method === 'POST' && response.status !== 307 && response.status !== 308) {
      throw new PeerHttpError('redirect', `${url.origin} answered ${response.status} to a POST`);
    }
    url = next;
  }
}

function parsePeerUrlKeepingPath(url: URL, policy: PeerHostPolicy): URL {
  const checked = parsePeerUrl(url.origin, policy);
  checked.pathname = url.pathname;
  checked.search = url.search;
  return checked;
}

/**
 * An idle connection is closed after this long, ms: before the peer closes it (a Manifold server
 * keeps one open 5 s by default, `KEEP_ALIVE_TIMEOUT_SECONDS`), so a request is not sent on a
 * connection the peer is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

/** Kept-alive connections per allow-list (one per configuration): each was checked when it connected. */
const agents = new WeakMap<PeerHostPolicy, { http: http.Agent; https: https.Agent }>();

function agentFor(policy: PeerHostPolicy, protocol: string): http.Agent {
  let pair = agents.get(policy);
  if (!pair) {
    const options = { keepAlive: true, maxFreeSockets: 64, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
    pair = { http: new http.Agent(options), https: new https.Agent(options) };
    agents.set(policy, pair);
  }
  return protocol === 'https:' ? pair.https : pair.http;
}

function once(policy: PeerHostPolicy, limits: PeerHttpLimits, request: PeerRequest & { url: URL }): Promise<PeerResponse> {
  const { url } = request;
  const stream = request.body instanceof Readable ? request.body : undefined;
  const body =
    request.body === undefined || stream
      ? undefined
      : typeof request.body === 'string'
        ? request.body
        : JSON.stringify(request.body);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PeerResponse>((resolve, reject) => {
    let settled = false;
    let refusedAddress: string | null = null;
    const finish = (error: Error | null, response?: PeerResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(readTimer);
      if (error) {
        outgoing.destroy();
        reject(error);
      } else resolve(response!);
    };
    const lookup: net.LookupFunction = (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 4);
        const list = Array.isArray(addresses) ? addresses : [];
        const refused = list.find((entry) => !addressAllowed(policy, hostname, entry.address));
        if (refused || list.length === 0) {
          refusedAddress = refused?.address ?? hostname;
          return callback(Object.assign(new Error(`${hostname} resolves to ${refusedAddress}`), { code: 'EPEERREFUSED' }), '', 4);
        }
        if (options.all) return callback(null, list);
        return callback(null, list[0]!.address, list[0]!.family);
      });
    };
    // a new connection resolves the name with `lookup` (checked against the allow-list); a kept-alive
    // one was checked when it connected
    const outgoing = transport.request(url, {
      method: request.method,
      lookup,
      agent: agentFor(policy, url.protocol),
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        ...request.headers,
      },
    });
    const connectTimer = setTimeout(
      () => finish(new PeerHttpError('timeout', `${url.origin}: no connection within ${limits.connectTimeoutMs} ms`)),
      limits.connectTimeoutMs,
    );
    let readTimer: NodeJS.Timeout | undefined;
    const connected = () => {
      clearTimeout(connectTimer);
      readTimer ??= setTimeout(
        () => finish(new PeerHttpError('timeout', `${url.origin}: no answer within ${limits.readTimeoutMs} ms`)),
        limits.readTimeoutMs,
      );
    };
    outgoing.on('socket', (socket) => {
      // a kept-alive connection is connected already
      if (!socket.connecting) connected();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (refusedAddress !== null) {
        finish(badUrl(`${url.hostname} resolves to an address outside PEER_ALLOWED_HOSTS (${refusedAddress})`));
      } else finish(new PeerHttpError('unreachable', `${url.origin} could not be reached: ${error.code ?? error.message}`));
    });
    outgoing.on('response', (incoming) => {
      const tooLarge = () =>
        finish(new PeerHttpError('tooLarge', `${url.origin}: the answer is larger than ${limits.maxResponseBytes} bytes`));
      const declared = Number(incoming.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxResponseBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let received = 0;
      incoming.on('data', (chunk: Buffer) => {
        received += chunk.byteLength;
        if (received > limits.maxResponseBytes) return tooLarge();
        chunks.push(chunk);
      });
      incoming.on('end', () =>
        finish(null, {
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      incoming.on('error', (error) => finish(new PeerHttpError('unreachable', `${url.origin}: ${error.message}`)));
    });
    if (stream) {
      stream.on('error', (error) =>
        finish(new PeerHttpError('unreachable', `${url.origin}: the upload failed: ${error.message}`)),
      );
      stream.pipe(outgoing);
    } else outgoing.end(body);
  });
}
