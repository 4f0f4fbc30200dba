import type { TCanonicalTraceEvent, TTraceEventBatchResult, TTraceEventReceipt } from '@manifold/contract';
import { EventChain, STP_EVENT_PATH, stpEnvelope, type MachineCredentials } from './protocol.js';

/** An answer the server gave with an error token (spec §7: `{errorToken, errorDescription}`). */
export class PartnerError extends Error {
  constructor(
    readonly status: number,
    readonly errorToken: string | undefined,
    readonly body: string,
  ) {
    super(`${status} ${errorToken ?? ''} ${body.slice(0, 300)}`.trim());
  }
}

/**
 * The partner calls of one machine over HTTP (the only interfaces a machine has):
 * `/apl/registration/add`, the STP pulls, `/stp/event` and `/mpf/dtl`.
 */
export class PartnerClient {
  constructor(
    readonly serverUrl: string,
    private readonly timeoutMs = 30_000,
  ) {}

  private async send(path: string, init: RequestInit): Promise<Response> {
    const response = await fetch(new URL(path, this.serverUrl), { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    if (response.ok) return response;
    const body = await response.text();
    let token: string | undefined;
    try {
      token = (JSON.parse(body) as { errorToken?: string }).errorToken;
    } catch {
      token = undefined;
    }
    throw new PartnerError(response.status, token, body);
  }

  private json(path: string, body: unknown): Promise<Response> {
    return this.send(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  async register(credentials: MachineCredentials): Promise<string> {
    const response = await this.json('/apl/registration/add', await credentials.request());
    return ((await response.json()) as { deviceId: string }).deviceId;
  }

  /** A signed STP call as `deviceId`; answers the raw response (JSON, XML or a file). */
  async stp(
    credentials: MachineCredentials,
    deviceId: string,
    path: string,
    body: Record<string, unknown> = {},
  ): Promise<Response> {
    return this.json(path, await stpEnvelope(credentials.signingKeyPem, deviceId, path, body));
  }

  async stpJson<T>(
    credentials: MachineCredentials,
    deviceId: string,
    path: string,
    body: Record<string, unknown> = {},
  ): Promise<T> {
    return (await (await this.stp(credentials, deviceId, path, body)).json()) as T;
  }

  async event(credentials: MachineCredentials, event: TCanonicalTraceEvent): Promise<TTraceEventReceipt> {
    return this.stpJson(credentials, event.deviceId, STP_EVENT_PATH, EventChain.body(event));
  }

  /** Several events of the machine in one request, the batch signed as a whole (`{batch: […]}`). */
  async events(
    credentials: MachineCredentials,
    deviceId: string,
    events: TCanonicalTraceEvent[],
  ): Promise<TTraceEventBatchResult> {
    return this.stpJson(credentials, deviceId, STP_EVENT_PATH, EventChain.batchBody(events));
  }

  /** `/mpf/dtl`: multipart, the one-time token first, then the file. */
  async uploadMachineData(token: string, fileName: string, content: Buffer): Promise<{ dtlId?: string; sha256?: string }> {
    const form = new FormData();
    form.append('token', token);
    form.append('file', new Blob([content], { type: 'text/csv' }), fileName);
    return (await (await this.send('/mpf/dtl', { method: 'POST', body: form })).json()) as { dtlId?: string; sha256?: string };
  }
}
