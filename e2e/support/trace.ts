import { adminToken, api, baseUrl } from './browser';
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
  stpEnvelope(
    machine: TestMachine,
    deviceId: string,
    path: string,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}

async function fixtures(): Promise<FixturesModules> {
  const packages = (await import(
    /* @vite-ignore */ new URL('../../apps/server/test/helpers/packages-fixtures.ts', import.meta.url).href
  )) as Pick<FixturesModules, 'testMachine'>;
  const trace = (await import(
    /* @vite-ignore */ new URL('../../apps/server/test/helpers/trace-fixtures.ts', import.meta.url).href
  )) as Pick<FixturesModules, 'MachineChain'>;
  const licensing = (await import(
    /* @vite-ignore */ new URL('../../apps/server/test/helpers/licensing-fixtures.ts', import.meta.url).href
  )) as Pick<FixturesModules, 'stpEnvelope'>;
  return { testMachine: packages.testMachine, MachineChain: trace.MachineChain, stpEnvelope: licensing.stpEnvelope };
}

export interface ReportingMachine {
  deviceId: string;
  name: string;
  serialNumber: string;
  /** Reports the next event of the machine's chain; answers its eventId. */
  report(kind: string, fields?: Record<string, unknown>): Promise<string>;
  /** Sends a data file with an upload token (`/stp/upload/token`, then `/mpf/dtl`); answers its dtlId. */
  sendData(authorizationId: string, fileName: string, content: string): Promise<string>;
}

/** A machine under a freshly trusted root, registered, approved, and able to report events. */
export async function reportingMachine(): Promise<ReportingMachine> {
  const root = await createTestRootCa('EC', `E2E Trace Root ${Date.now().toString(36)}`);
  await uploadProvision('trustAnchor', root.certificatePem);
  const { testMachine, MachineChain, stpEnvelope } = await fixtures();
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
    async sendData(authorizationId, fileName, content) {
      const envelope = await stpEnvelope(machine, deviceId, '/stp/upload/token', { authorizationId, purpose: 'dtl' });
      const granted = await api<{ token: string }>('POST /stp/upload/token', { body: envelope });
      if (granted.status !== 200) throw new Error(`stp/upload/token answered ${granted.status}`);
      const form = new FormData();
      form.append('token', granted.body.token);
      form.append('file', new Blob([content], { type: 'text/csv' }), fileName);
      const response = await fetch(`${baseUrl()}/mpf/dtl`, { method: 'POST', body: form });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`mpf/dtl answered ${response.status}: ${text}`);
      return (JSON.parse(text) as { dtlId: string }).dtlId;
    },
  };
}
