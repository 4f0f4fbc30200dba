import { adminToken, api } from './browser';
import { approvedMachine, builtRevision, policyList, provisionedSigningSerial, type TestMachine } from './licensing';

/**
 * Parts made by a machine for the quality tests: an order with a quality parameter (height,
 * 10–12 mm) for a supplier of its own, authorized to a registered machine, which reports a job
 * of `quantity` parts in signed events (the server integration suite's STP signing and event
 * hashing, loaded by address like the machine itself).
 */
interface EventFormatModule {
  canonicalEvent(body: Record<string, unknown>, deviceId: string): Record<string, unknown>;
  eventHash(event: Record<string, unknown>): string;
}
interface LicensingFixturesModule {
  stpEnvelope(machine: TestMachine, deviceId: string, path: string, body: Record<string, unknown>): Promise<unknown>;
}

const load = async <T>(relative: string) => (await import(/* @vite-ignore */ new URL(relative, import.meta.url).href)) as T;

async function ok<T>(label: string, call: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await call;
  if (status !== 200) throw new Error(`${label} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

export interface MadeParts {
  supplier: string;
  parts: { id: string; serialNumber: string | null; buildId: string }[];
}

export async function madeParts(quantity: number): Promise<MadeParts> {
  const token = await adminToken();
  const serial = await provisionedSigningSerial();
  const revision = await builtRevision();
  const { deviceId, machine } = await approvedMachine();
  const supplier = `E2E Supplier ${Date.now().toString(36)}`;
  const policy = {
    ...policyList(revision, serial, 10),
    companyName: supplier,
    qualityParameters: [
      { id: 'height', type: 'decimal', units: 'mm', low: 10, high: 12, encrypt: false, required: false, adjust: 'FREE' },
    ],
  };
  const { orderId } = await ok(
    'order/add',
    api<{ orderId: string }>('POST /ui/order/add', { token, body: { authorizationAuthorizedPolicyList: policy } }),
  );
  const { authorizationId } = await ok(
    'authorization/authorize',
    api<{ authorizationId: string }>('POST /ui/authorization/authorize', { token, body: { orderId, deviceId, quantity } }),
  );
  await ok('authorization/send', api('POST /ui/authorization/send', { token, body: { orderId, authorizationId } }));

  const format = await load<EventFormatModule>('../../apps/server/src/modules/events/trace-event-format.ts');
  const fixtures = await load<LicensingFixturesModule>('../../apps/server/test/helpers/licensing-fixtures.ts');
  let previousHash: string | null = null;
  for (const kind of ['jobStarted', 'jobEnded']) {
    const body = {
      eventId: crypto.randomUUID(),
      kind,
      occurredAt: new Date().toISOString(),
      authorizationId,
      jobId: 'e2e-job',
      quantity,
      previousHash,
      data: {},
    };
    previousHash = format.eventHash(format.canonicalEvent(body, deviceId));
    const envelope = await fixtures.stpEnvelope(machine, deviceId, '/stp/event', body);
    await ok(`stp/event ${kind}`, api('POST /stp/event', { body: envelope }));
  }
  const listed = await ok(
    'part/list',
    api<{ data: { id: string; serialNumber: string | null; buildId: string; authorizationId: string }[] }>(
      `GET /ui/part/list?dsiId=${revision.dsiId}&numberOfItems=100`,
      { token },
    ),
  );
  const parts = listed.data.filter((part) => part.authorizationId === authorizationId);
  if (parts.length !== quantity) throw new Error(`expected ${quantity} parts, found ${parts.length}`);
  return { supplier, parts };
}
