import { adminToken, api } from './browser';
import { createTestRootCa, type TestCa } from './certificates';
import { uploadProvision } from './machines';

/**
 * A machine that reports events, for the browser tests: the server integration suite's
 * `testMachine` and `MachineChain` (loaded by address, as in ./certificates, to keep the server
 * sources out of this project's DOM-typed check). Its events are signed STP envelopes sent to
 * `POST /stp/event` like a real machine's.
 */
interface TestMachine {
  apl: { deviceIdentity: { id: string; name: string; serialNumber: string } };
  signingKeyPem: string;
  request(): Promise<Record<string, unknown>>;
}

interface CanonicalEvent {
  eventId: string;
  kind: string;
}

interface Chain {
  next(kind: string, fields?: Record<string, unknown>): CanonicalEvent;
  envelope(event: CanonicalEvent): Promise<Record<string, unknown>>;
}

interface FixturesModules {
  testMachine(root: TestCa): Promise<TestMachine>;
  MachineChain: new (world: { machine: TestMachine; deviceId: string }) => Chain;
}

async function fixtures(): Promise<FixturesModules> {
  const packages = (await import(
    /* @vite-ignore */ new URL('../../apps/server/test/helpers/packages-fixtures.ts', import.meta.url).href
  )) as Pick<FixturesModules, 'testMachine'>;
  const trace = (await import(
    /* @vite-ignore */ new URL('../../apps/server/test/helpers/trace-fixtures.ts', import.meta.url).href
  )) as Pick<FixturesModules, 'MachineChain'>;
  return { testMachine: packages.testMachine, MachineChain: trace.MachineChain };
}

export interface ReportingMachine {
  deviceId: string;
  name: string;
  serialNumber: string;
  /** Reports the next event of the machine's chain; answers its eventId. */
  report(kind: string, fields?: Record<string, unknown>): Promise<string>;
}

/** A machine under a freshly trusted root, registered, approved, and able to report events. */
export async function reportingMachine(): Promise<ReportingMachine> {
  const root = await createTestRootCa('EC', `E2E Trace Root ${Date.now().toString(36)}`);
  await uploadProvision('trustAnchor', root.certificatePem);
  const { testMachine, MachineChain } = await fixtures();
  const machine = await testMachine(root);
  const registered = await api<{ deviceId: string }>('POST /apl/registration/add', { body: await machine.request() });
  if (registered.status !== 200) throw new Error(`registration answered ${registered.status}`);
  const { deviceId } = registered.body;
  const approved = await api('POST /ui/device/approve', { token: await adminToken(), body: { id: deviceId, approve: true } });
  if (approved.status !== 200) throw new Error(`device/approve answered ${approved.status}`);
  const chain = new MachineChain({ machine, deviceId });
  return {
    deviceId,
    name: machine.apl.deviceIdentity.name,
    serialNumber: machine.apl.deviceIdentity.serialNumber,
    async report(kind, fields = {}) {
      const event = chain.next(kind, fields);
      const { status, body } = await api('POST /stp/event', { body: await chain.envelope(event) });
      if (status !== 200) throw new Error(`stp/event answered ${status}: ${JSON.stringify(body)}`);
      return event.eventId;
    },
  };
}
