/**
 * `npm run demo [-- --reset] [options]`: a whole Manifold network on this machine — an upstream
 * Manage, a downstream Manage and a Trace instance (three server processes, each on its own SQLite
 * database under the demo folder) and fleets of simulated machines printing continuously. Every
 * record is made through the calls a real deployment uses. See docs/simulator.md.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { revisionPolicyList } from '@manifold/contract';
import { developmentCaFile, Fleet, type MachineBehaviour, until } from '@manifold/machine-simulator';
import { describeCertificate } from '../../apps/server/src/crypto/certificates.js';
import { createCsr } from '../../apps/server/src/crypto/csr.js';
import { signCsrWithDevelopmentCa, type DevelopmentCa } from '../../apps/server/src/crypto/development-ca.js';
import { generateKeyPair } from '../../apps/server/src/crypto/key-pairs.js';
import { bundledNodeArgs } from '../server-build.mjs';
import { demoDesigns } from './design-files.js';
import { CallError, Instance } from './instance.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const started = Date.now();
const say = (line: string) => console.log(`demo: ${line}`);

const usage = `usage: npm run demo [-- options]
  --reset                  delete the demo folder first and start a new network
  --dir DIR                the demo folder (default .demo)
  --port P                 upstream on P, downstream on P+1, Trace on P+2 (default 8481; 0: any free ports)
  --machines N             simulated machines of the upstream Manage (default 8)
  --downstream-machines M  simulated machines of the downstream Manage (default 3)
  --job-ms MIN-MAX         printing time of a job (default 8000-25000)
  --failure-rate R         share of jobs that fail (default 0.08)
  --delegated-parts N      parts the upstream hands the downstream Manage at a time, again whenever
                           they are used up (default 500)
  --no-console-build       do not build the console first (the API still answers)`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        reset: { type: 'boolean' },
        dir: { type: 'string' },
        port: { type: 'string' },
        machines: { type: 'string' },
        'downstream-machines': { type: 'string' },
        'job-ms': { type: 'string' },
        'failure-rate': { type: 'string' },
        'delegated-parts': { type: 'string' },
        'no-console-build': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
/** A whole number from `min` to `max` (`whole`), or any number in that range. */
function numberOption(value: string | undefined, name: string, fallback: number, min: number, max: number, whole = true): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!(parsed >= min && parsed <= max) || (whole && !Number.isInteger(parsed))) {
    console.error(`--${name} must be ${whole ? 'a whole number ' : ''}between ${min} and ${max}\n\n${usage}`);
    process.exit(2);
  }
  return parsed;
}
const demoDir = path.resolve(values.dir ?? path.join(repoRoot, '.demo'));
const upstreamMachines = numberOption(values.machines, 'machines', 8, 0, 500);
const downstreamMachines = numberOption(values['downstream-machines'], 'downstream-machines', 3, 0, 500);
const failureRate = numberOption(values['failure-rate'], 'failure-rate', 0.08, 0, 0.9, false);
/** Parts of the upstream's first order handed to the downstream Manage at a time. */
const delegatedParts = numberOption(values['delegated-parts'], 'delegated-parts', 500, 1, 1_000_000);
const jobMs = (() => {
  const match = /^(\d+)-(\d+)$/.exec(values['job-ms'] ?? '8000-25000');
  if (!match || Number(match[2]) < Number(match[1])) {
    console.error(`--job-ms must be MIN-MAX\n\n${usage}`);
    process.exit(2);
  }
  return [Number(match[1]), Number(match[2])] as const;
})();
const behaviour: Partial<MachineBehaviour> = {
  jobMs,
  pauseMs: [2_000, 6_000],
  failureRate,
  cancelRate: 0.02,
  pauseRate: 0.15,
  partsPerJob: [1, 4],
  pollMs: 3_000,
};

type Key = 'upstream' | 'downstream' | 'trace';
const keys: Key[] = ['upstream', 'downstream', 'trace'];
const siteNames: Record<Key, string> = {
  upstream: 'Acme Upstream Manage',
  downstream: 'Beta Downstream Manage',
  trace: 'Gamma Trace',
};

/** What the demo keeps in DIR/demo.json (mode 0600): addresses, logins, what it seeded. */
interface DemoState {
  version: 1;
  hosts: Record<Key, string>;
  ports: Record<Key, number>;
  adminPasswords: Record<Key, string>;
  operatorPassword: string;
  seeded: boolean;
  upstreamSigningSerial?: string;
  licensorSerial?: string;
  orderIds?: string[];
  dsiIds?: string[];
  manageId?: string;
  downstreamOrderId?: string;
}
const stateFile = path.join(demoDir, 'demo.json');
const saveState = (state: DemoState) => fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });

function canListen(host: string, port = 0): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
const password = () => `Demo-${randomBytes(9).toString('base64url')}`;

async function newState(): Promise<DemoState> {
  // one loopback address per instance, so the consoles' session cookies do not overwrite each other
  const distinct = (await canListen('127.0.0.2')) && (await canListen('127.0.0.3'));
  const hosts: Record<Key, string> = distinct
    ? { upstream: '127.0.0.1', downstream: '127.0.0.2', trace: '127.0.0.3' }
    : { upstream: '127.0.0.1', downstream: '127.0.0.1', trace: '127.0.0.1' };
  const base = numberOption(values.port, 'port', 8481, 0, 65533);
  const ports = {} as Record<Key, number>;
  for (const [index, key] of keys.entries()) {
    ports[key] = base === 0 ? await freePort(hosts[key]) : base + index;
    if (!(await canListen(hosts[key], ports[key]))) {
      console.error(`demo: ${hosts[key]}:${ports[key]} is taken; choose other ports with --port`);
      process.exit(1);
    }
  }
  return {
    version: 1,
    hosts,
    ports,
    adminPasswords: { upstream: password(), downstream: password(), trace: password() },
    operatorPassword: password(),
    seeded: false,
  };
}

/** Key pairs, both certificates from the network CA, the CA as trust anchor (provisioning through the API). */
async function provision(instance: Instance, ca: DevelopmentCa): Promise<string> {
  await instance.call('POST', '/ui/admin/provision', { keyType: 'EC' });
  const csrs = await instance.call<{ signingCSR: string; encryptionCSR: string }>(
    'GET',
    '/ui/admin/provision?csr=both&service=manage',
  );
  const upload = (certificateType: string, pem: string) =>
    instance.call(
      'POST',
      '/ui/admin/upload/provision',
      Instance.form({ certificateType }, { name: `${certificateType}.pem`, content: Buffer.from(pem) }),
    );
  await upload('trustAnchor', ca.certificatePem);
  const signing = await signCsrWithDevelopmentCa(ca, csrs.signingCSR);
  await upload('signing', signing);
  await upload('encryption', await signCsrWithDevelopmentCa(ca, csrs.encryptionCSR));
  await instance.call('POST', '/ui/admin/server', {
    serverSiteName: instance.options.siteName,
    serverUrl: instance.url,
    manageEnabled: true,
    traceEnabled: true,
  });
  await instance.call('POST', '/ui/admin/storage/provider', { identifier: 'local' });
  return describeCertificate(signing).serialNumber;
}

async function seed(state: DemoState, instances: Record<Key, Instance>, ca: DevelopmentCa): Promise<void> {
  const { upstream, downstream, trace } = instances;
  say('provisioning keys and certificates from the demo network CA');
  const serials = await Promise.all(keys.map((key) => provision(instances[key], ca)));
  const upstreamSigningSerial = serials[0]!;
  state.upstreamSigningSerial = upstreamSigningSerial;

  say('registering the instances with each other');
  const added = await upstream.call<{ manageId: string }>('POST', '/ui/manage/add', { manageUrl: downstream.url });
  state.manageId = added.manageId;
  const asked = await downstream.all<{ manageId: string; registrationState: string }>(
    '/ui/manage/list?registrationType=upStreamManage',
  );
  for (const row of asked.filter((entry) => entry.registrationState === 'Pending')) {
    await downstream.call('POST', '/ui/manage/approve', { id: row.manageId, approve: true });
  }
  for (const manage of [upstream, downstream]) await manage.call('POST', '/ui/trace/add', { traceUrl: trace.url });
  const traceRows = await until(
    'both registrations at the Trace instance',
    async () => {
      const rows = await trace.all<{ id: string; registrationState: string; initiator: boolean }>('/ui/trace/list');
      const pending = rows.filter((row) => row.registrationState === 'Pending' && !row.initiator);
      return pending.length === 2 ? pending : undefined;
    },
    60_000,
    300,
  );
  for (const row of traceRows) await trace.call('POST', '/ui/trace/approve', { id: row.id, approve: true });

  say('adding users');
  for (const key of keys) {
    await instances[key].call('POST', '/ui/user/add', {
      username: 'operator',
      password: state.operatorPassword,
      firstName: 'Olga',
      lastName: 'Operator',
      email: `operator@${key}.demo.invalid`,
      role: 'USER',
      timeZone: 'UTC',
      language: 'en_US',
      company: siteNames[key],
    });
  }

  say('creating and building design packages (3MF with thumbnails)');
  const licensor = await generateKeyPair('EC');
  const licensorCertificate = await signCsrWithDevelopmentCa(
    ca,
    await createCsr({ siteName: 'Acme Designs', service: 'manage', purpose: 'signing', privateKeyPem: licensor.privateKeyPem }),
  );
  const licensorSerial = describeCertificate(licensorCertificate).serialNumber;
  state.licensorSerial = licensorSerial;
  state.orderIds = [];
  state.dsiIds = [];
  for (const [index, design] of demoDesigns().entries()) {
    const { dsiId } = await upstream.call<{ dsiId: string }>('POST', '/ui/package/info', {
      designName: design.designName,
      description: design.description,
      companyName: 'Acme Designs',
      multiPlaten: false,
      displayImage: `data:image/png;base64,${design.thumbnail.toString('base64')}`,
    });
    await upstream.call(
      'POST',
      '/ui/package/files/upload',
      Instance.form({ dsiId, isPublic: 'false' }, { name: design.fileName, content: design.threeMf, type: 'model/3mf' }),
    );
    const revision = await upstream.call<{ dsiId: string; dsiVersion: number; digestValue: string }>(
      'POST',
      '/ui/package/build',
      { dsiId },
    );
    const prefix = design.designName.replace(/[^A-Z]/g, '');
    const { orderId } = await upstream.call<{ orderId: string }>('POST', '/ui/order/add', {
      authorizationAuthorizedPolicyList: revisionPolicyList(
        revision,
        { licensee: upstreamSigningSerial, licensor: licensorSerial },
        'Acme Designs',
        {
          orderNumber: `DEMO-${prefix}-${index + 1}`,
          quantity: 1_000_000,
          expiration: new Date(Date.now() + 365 * 86_400_000).toISOString(),
          purpose: 'Demo production run',
          breakage: { policy: 'Percentage', value: 5 },
          serialization: { type: 'Dec', prefix: `${prefix}-`, start: 1, end: 9_999_999 },
        },
      ),
    });
    state.orderIds.push(orderId);
    state.dsiIds.push(revision.dsiId);
  }

  say('sending an authorization to the downstream Manage');
  const authorizationId = await delegateParts(state, upstream);
  // the design of the delegated order, handed down with content keys wrapped for the downstream
  say('handing its design to the downstream Manage');
  await upstream.call('POST', '/ui/das/transfer', { dsiId: state.dsiIds[0], manageId: state.manageId });
  // its machines are authorized only once the design is there (a licence naming no file is refused)
  await until(
    'the design at the downstream Manage',
    async () =>
      (await downstream.call<{ data: unknown[] }>('GET', `/ui/das/list?dsiId=${state.dsiIds![0]}`)).data.length > 0 || undefined,
    60_000,
    300,
  );
  await takeDelegatedOrder(state, downstream, authorizationId);
}

/** The upstream authorizes the downstream Manage for {@link delegatedParts} of its first order and sends it. */
async function delegateParts(state: DemoState, upstream: Instance): Promise<string> {
  const { authorizationId } = await upstream.call<{ authorizationId: string }>('POST', '/ui/authorization/authorize', {
    orderId: state.orderIds![0],
    manageId: state.manageId,
    quantity: delegatedParts,
  });
  await upstream.call('POST', '/ui/authorization/send', { orderId: state.orderIds![0], authorizationId });
  return authorizationId;
}

/** Waits for the order the delegated authorization becomes at the downstream Manage, and works from it. */
async function takeDelegatedOrder(state: DemoState, downstream: Instance, authorizationId: string): Promise<void> {
  const order = await until(
    'the order at the downstream Manage',
    async () => {
      const orders = await downstream.all<{ orderIdentity: { orderId: string; authorizationId: string | null } }>(
        '/ui/order/list',
      );
      return orders.find((entry) => entry.orderIdentity.authorizationId === authorizationId);
    },
    60_000,
    300,
  );
  state.downstreamOrderId = order.orderIdentity.orderId;
}

/** Approves the fleet's machines waiting for approval (as the instance's administrator). */
async function approveFleet(instance: Instance, fleet: Fleet): Promise<void> {
  const ids = new Set(fleet.machines.map((machine) => machine.deviceId));
  const waiting = await instance.all<{ deviceId: string; registrationState: string }>('/ui/device/list?approved=false');
  for (const device of waiting.filter((entry) => ids.has(entry.deviceId) && entry.registrationState === 'Pending')) {
    await instance.call('POST', '/ui/device/approve', { id: device.deviceId, approve: true });
  }
}

/**
 * Keeps machines busy the way an operator would: a machine with nothing left to print (and no
 * licence it refused) gets a new authorization of `batch` parts, sent to it. When the order has
 * no parts left (`orderHasNoMoreQuantity`), `refill` gets more, once, before the next round.
 */
function operator(instance: Instance, fleet: Fleet, orderIds: () => string[], batch: number, refill?: () => Promise<void>) {
  const pending = new Map<string, string>();
  let busy = false;
  return async () => {
    if (busy) return;
    busy = true;
    try {
      for (const [index, machine] of fleet.machines.entries()) {
        if (machine.state === 'awaitingApproval' || machine.state === 'unregistered' || machine.state === 'offline') continue;
        const waiting = pending.get(machine.deviceId);
        const licences = machine.licences(waiting);
        if (waiting && !licences.knows) continue;
        pending.delete(machine.deviceId);
        if (licences.left > 0 || licences.refused > 0) continue;
        const ids = orderIds();
        const orderId = ids[index % ids.length];
        if (!orderId) continue;
        const { authorizationId } = await instance.call<{ authorizationId: string }>('POST', '/ui/authorization/authorize', {
          orderId,
          deviceId: machine.deviceId,
          quantity: batch,
        });
        await instance.call('POST', '/ui/authorization/send', { orderId, authorizationId });
        pending.set(machine.deviceId, authorizationId);
      }
    } catch (error) {
      const usedUp = refill && error instanceof CallError && error.message.includes('"orderHasNoMoreQuantity"');
      await (usedUp ? refill() : Promise.reject(error)).catch((failure: unknown) =>
        say(`operator at ${instance.options.siteName}: ${(failure as Error).message}`),
      );
    } finally {
      busy = false;
    }
  };
}

/** CPU seconds a process has used (Linux /proc), or undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  if (values.reset) {
    say(`--reset: deleting ${demoDir}`);
    fs.rmSync(demoDir, { recursive: true, force: true });
  }
  fs.mkdirSync(demoDir, { recursive: true });
  const state: DemoState = fs.existsSync(stateFile)
    ? (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as DemoState)
    : await newState();
  saveState(state);
  if (!values['no-console-build']) {
    const built = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/console-build.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the console build failed');
  }
  // the server as `npm start` runs it (its bundle, built first when stale)
  const serverArgs = bundledNodeArgs();
  const { ca } = await developmentCaFile(path.join(demoDir, 'network-ca.pem'), 'Manifold Demo Network CA (not for production)');
  const instances = Object.fromEntries(
    keys.map((key) => [
      key,
      new Instance({
        key,
        siteName: siteNames[key],
        host: state.hosts[key],
        port: state.ports[key],
        dataDir: path.join(demoDir, key),
        adminPassword: state.adminPasswords[key],
        serverArgs,
      }),
    ]),
  ) as Record<Key, Instance>;

  let fleets: Fleet[] = [];
  const timers: NodeJS.Timeout[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) {
      for (const instance of Object.values(instances)) instance.child?.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    for (const timer of timers) clearInterval(timer);
    say('stopping: machines report offline, then the servers stop');
    await Promise.all(fleets.map((fleet) => fleet.stop())).catch(() => undefined);
    const codes = await Promise.all(Object.values(instances).map((instance) => instance.stop()));
    say(`stopped (server exit codes ${codes.join(', ')}); npm run demo resumes, npm run demo -- --reset starts over`);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    say(`starting three servers under ${demoDir}`);
    await Promise.all(Object.values(instances).map((instance) => instance.start()));
    const consolesUp = (Date.now() - started) / 1000;
    if (!state.seeded) {
      await seed(state, instances, ca);
      state.seeded = true;
      saveState(state);
    }

    const upstreamFleet = new Fleet({
      serverUrl: instances.upstream.url,
      ca,
      count: upstreamMachines,
      namePrefix: 'Upstream Printer',
      stateDir: path.join(demoDir, 'machines/upstream'),
      behaviour,
      log: (line) => /error|refused/.test(line) && say(line),
    });
    const downstreamFleet = new Fleet({
      serverUrl: instances.downstream.url,
      ca,
      count: downstreamMachines,
      namePrefix: 'Downstream Printer',
      stateDir: path.join(demoDir, 'machines/downstream'),
      behaviour,
      log: (line) => /error|refused/.test(line) && say(line),
    });
    fleets = [upstreamFleet, downstreamFleet];
    say(`registering ${upstreamMachines} + ${downstreamMachines} simulated machines`);
    await upstreamFleet.register();
    await downstreamFleet.register();
    const runs = fleets.map((fleet) => fleet.run());
    await approveFleet(instances.upstream, upstreamFleet);
    await approveFleet(instances.downstream, downstreamFleet);
    const upstreamOperator = operator(instances.upstream, upstreamFleet, () => state.orderIds ?? [], 20);
    const downstreamOperator = operator(
      instances.downstream,
      downstreamFleet,
      () => (state.downstreamOrderId ? [state.downstreamOrderId] : []),
      5,
      // the downstream's parts are used up: its operator asks upstream for more, as a real one would
      async () => {
        say(`the downstream Manage's order is used up: the upstream Manage delegates ${delegatedParts} more parts`);
        await takeDelegatedOrder(state, instances.downstream, await delegateParts(state, instances.upstream));
        saveState(state);
      },
    );
    timers.push(setInterval(() => void upstreamOperator().then(downstreamOperator), 2_000));
    await upstreamOperator();
    await downstreamOperator();

    const lines = [
      '',
      `Manifold demo network (${demoDir})`,
      '',
      ...keys.map(
        (key) =>
          `  ${siteNames[key].padEnd(24)} ${instances[key].url.padEnd(24)} admin / ${state.adminPasswords[key]}    operator / ${state.operatorPassword}`,
      ),
      '',
      `  machines: ${upstreamMachines} printing for the upstream Manage, ${downstreamMachines} for the downstream Manage`,
      `  consoles answered ${consolesUp.toFixed(1)} s after start; ready ${((Date.now() - started) / 1000).toFixed(1)} s after start`,
      '  Ctrl-C stops everything cleanly; npm run demo resumes; npm run demo -- --reset starts over',
      '',
    ];
    console.log(lines.join('\n'));
    say(`ready (server pids ${keys.map((key) => `${key}=${instances[key].child?.pid}`).join(' ')}; demo pid ${process.pid})`);

    let last = {
      at: Date.now(),
      events: 0,
      cpu: keys.map((key) => cpuSeconds(instances[key].child?.pid)),
      own: process.cpuUsage(),
    };
    timers.push(
      setInterval(() => {
        const now = Date.now();
        const seconds = (now - last.at) / 1000;
        const events = fleets.reduce((sum, fleet) => sum + fleet.stats().events, 0);
        const cpu = keys.map((key) => cpuSeconds(instances[key].child?.pid));
        const own = process.cpuUsage();
        const share = (a: number | undefined, b: number | undefined) =>
          a === undefined || b === undefined ? '?' : `${(((a - b) / seconds) * 100).toFixed(0)}%`;
        const ownShare = ((own.user + own.system - last.own.user - last.own.system) / 1e6 / seconds) * 100;
        const stats = upstreamFleet.stats();
        say(
          `${((events - last.events) / seconds).toFixed(1)} events/s; parts ${stats.partsMade}, jobs ended ${stats.jobsEnded} failed ${stats.jobsFailed}; CPU upstream ${share(cpu[0], last.cpu[0])} downstream ${share(cpu[1], last.cpu[1])} trace ${share(cpu[2], last.cpu[2])} machines+demo ${ownShare.toFixed(0)}% (of one core; ${os.cpus().length} cores)`,
        );
        last = { at: now, events, cpu, own };
      }, 30_000),
    );
    await Promise.all(runs);
  } catch (error) {
    console.error(`demo: ${(error as Error).message}`);
    await shutdown(1);
  }
}

void main();
