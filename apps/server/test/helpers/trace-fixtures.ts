import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TCanonicalTraceEvent, TTraceEventKind } from '@manifold/contract';
import { signXml } from '../../src/crypto/xml-signature.js';
import { canonicalEvent, eventHash, STP_EVENT_PATH, traceEventXml } from '../../src/modules/events/trace-event-format.js';
import { authorize, type LicensingWorld, stpCall, stpEnvelope } from './licensing-fixtures.js';
import type { TestApp } from './test-app.js';

type Machine = Pick<LicensingWorld, 'machine' | 'deviceId'>;

/** Authorizes `quantity` of the order to the machine and (unless `send` is false) sends it. */
export async function grantAuthorization(
  ctx: TestApp,
  orderId: string,
  deviceId: string,
  quantity: number,
  options: { send?: boolean; extra?: Record<string, unknown> } = {},
): Promise<string> {
  const authorizationId = await authorize(ctx, { orderId, deviceId, quantity, ...options.extra });
  if (options.send !== false) {
    const sent = await ctx.call('POST', '/ui/authorization/send', {
      token: await ctx.adminToken(),
      body: { orderId, authorizationId },
    });
    expect(sent.statusCode, sent.body).toBe(200);
  }
  return authorizationId;
}

/** A machine's side of the chain: each new event names the hash of the one before. */
export class MachineChain {
  head: string | null = null;

  constructor(readonly world: Machine) {}

  /** The next event of the chain (the head moves on). */
  next(kind: TTraceEventKind, fields: Partial<Omit<TCanonicalTraceEvent, 'kind' | 'deviceId'>> = {}): TCanonicalTraceEvent {
    const event = this.event(kind, { previousHash: this.head, ...fields });
    this.head = eventHash(event);
    return event;
  }

  /** An event that does not move the head (for gaps, forks and refusals). */
  event(kind: TTraceEventKind, fields: Partial<Omit<TCanonicalTraceEvent, 'kind' | 'deviceId'>> = {}): TCanonicalTraceEvent {
    return canonicalEvent(
      {
        eventId: randomUUID(),
        kind,
        occurredAt: new Date().toISOString(),
        authorizationId: null,
        jobId: null,
        quantity: null,
        previousHash: null,
        data: {},
        ...fields,
      },
      this.world.deviceId,
    );
  }

  /** The event's STP body: the canonical event less the deviceId (the envelope carries it). */
  static body(event: TCanonicalTraceEvent): Record<string, unknown> {
    const { deviceId: _deviceId, ...body } = event;
    return body;
  }

  sendStp(ctx: TestApp, event: TCanonicalTraceEvent) {
    return stpCall(ctx, this.world, STP_EVENT_PATH, MachineChain.body(event));
  }

  envelope(event: TCanonicalTraceEvent) {
    return stpEnvelope(this.world.machine, this.world.deviceId, STP_EVENT_PATH, MachineChain.body(event));
  }

  /** The XML form signed by the machine's key (or `signingKeyPem`, `certificatePem`). */
  xml(event: TCanonicalTraceEvent, signer: { privateKeyPem?: string; certificatePem?: string } = {}): string {
    return signXml(traceEventXml(event), {
      privateKeyPem: signer.privateKeyPem ?? this.world.machine.signingKeyPem,
      certificatePem: signer.certificatePem ?? this.world.machine.apl.signingCertificate,
    });
  }

  sendXml(ctx: TestApp, xml: string) {
    return ctx.call('POST', '/apl/event', { body: xml, headers: { 'content-type': 'application/xml' } });
  }
}
