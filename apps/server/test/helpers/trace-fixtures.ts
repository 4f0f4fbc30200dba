import { expect } from 'vitest';
import type { TCanonicalTraceEvent } from '@manifold/contract';
import { EventChain } from '@manifold/machine-simulator';
import { signXml } from '../../src/crypto/xml-signature.js';
import { STP_EVENT_PATH, traceEventXml } from '../../src/modules/events/trace-event-format.js';
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

/** The `traceChainBroken` audit records of a machine, oldest first: their details. */
export async function chainBreaks(ctx: TestApp, deviceId: string) {
  const rows = await ctx.app.services.database.db
    .selectFrom('audit_events')
    .select('details')
    .where('event_type', '=', 'traceChainBroken')
    .where('subject', '=', deviceId)
    .orderBy('id')
    .execute();
  return rows.map(
    (row) => JSON.parse(row.details!) as { eventId: string; finding: string; previousHash: string; expectedPreviousHash: string },
  );
}

/** A machine's side of the chain (the simulator's {@link EventChain}) with the test app's calls. */
export class MachineChain extends EventChain {
  constructor(readonly world: Machine) {
    super(world.deviceId);
  }

  sendStp(ctx: TestApp, event: TCanonicalTraceEvent) {
    return stpCall(ctx, this.world, STP_EVENT_PATH, EventChain.body(event));
  }

  envelope(event: TCanonicalTraceEvent) {
    return stpEnvelope(this.world.machine, this.world.deviceId, STP_EVENT_PATH, EventChain.body(event));
  }

  /** The list form of these events, each in its own signed envelope (its proof). */
  async list(events: TCanonicalTraceEvent[]) {
    return {
      events: await Promise.all(
        events.map(async (event) => ({ proof: { format: 'stp', envelope: await this.envelope(event) } })),
      ),
    };
  }

  /** A batch: the list form of `events` in one signed STP envelope (`POST /stp/event`). */
  async sendBatch(ctx: TestApp, events: TCanonicalTraceEvent[]) {
    return stpCall(ctx, this.world, STP_EVENT_PATH, await this.list(events));
  }

  /** A batch signed as a whole: `{batch: [...]}` in one signed STP envelope (`POST /stp/event`). */
  signedBatch(events: TCanonicalTraceEvent[]) {
    return stpEnvelope(this.world.machine, this.world.deviceId, STP_EVENT_PATH, EventChain.batchBody(events));
  }

  sendSignedBatch(ctx: TestApp, events: TCanonicalTraceEvent[]) {
    return stpCall(ctx, this.world, STP_EVENT_PATH, EventChain.batchBody(events));
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
