import { PeerHttpError, peerRequest, type PeerHttpConfig } from '../../peers/http-client.js';

/** The `fetch` shape `openid-client` and `jose` accept as their custom fetch. */
export type OutboundFetch = (
  url: string,
  init?: { method?: string; headers?: ConstructorParameters<typeof Headers>[0]; body?: unknown },
) => Promise<Response>;

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new Error('outbound calls to identity providers send text or form bodies only');
}

/**
 * `fetch` for identity providers and token issuers going through the peer HTTP client: the
 * address allow-list (`PEER_ALLOWED_HOSTS`, checked again at connect time), same-origin redirects
 * only, connect/read timeouts and a bounded answer size. A refused address throws
 * `httpClientBadUrl`; a failed call throws a `PeerHttpError`.
 */
export function outboundFetch(config: PeerHttpConfig): OutboundFetch {
  return async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST')
      throw new PeerHttpError('unreachable', `${method} is not used with identity providers`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = bodyText(init.body);
    const answer = await peerRequest(config, {
      method,
      url: new URL(url),
      ...(body !== undefined ? { body } : {}),
      headers,
    });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(key, item);
    }
    const status = answer.status;
    const nullBody = status === 204 || status === 304;
    return new Response(nullBody ? null : answer.text, { status, headers: responseHeaders });
  };
}
