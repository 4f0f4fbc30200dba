import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  TCanonicalTraceEvent,
  TDeviceParameter,
  TEnforceApl,
  TPage,
  TStpAuthorization,
  TTraceEventKind,
} from '@manifold/contract';
import { decryptContent, unwrapContentKey } from '@manifold/server/src/crypto/design-keys.js';
import type { DevelopmentCa } from '@manifold/server/src/crypto/development-ca.js';
import { PartnerClient, PartnerError } from './client.js';
import {
  AuthorizationRefused,
  createMachineCredentials,
  credentialsOf,
  EventChain,
  jobSettings,
  readAuthorization,
  type AuthorizationTerms,
  type AuthorizedFile,
  type EventFields,
  type MachineCredentials,
} from './protocol.js';

/** A design file that must not be printed: its bytes are not the ones the signed authorization names. */
export class DesignRefused extends Error {}

/**
 * Opens one downloaded design file: private files are decrypted with the content key unwrapped by
 * the machine's encryption key (AES-256-GCM: any changed byte fails), and every file's SHA-256
 * must equal the one in the signed authorization. Throws {@link DesignRefused}.
 */
export async function openDesignFile(content: Buffer, file: AuthorizedFile, encryptionKeyPem: string): Promise<Buffer> {
  let plain = content;
  if (!file.isPublic) {
    if (!file.wrappedKey) throw new DesignRefused(`${file.name}: private, but the authorization carries no key for it`);
    try {
      plain = decryptContent(content, await unwrapContentKey(file.wrappedKey, encryptionKeyPem));
    } catch (error) {
      throw new DesignRefused(`${file.name}: does not decrypt (${(error as Error).message})`);
    }
  }
  const digest = createHash('sha256').update(plain).digest('hex');
  if (digest !== file.sha256) throw new DesignRefused(`${file.name}: SHA-256 ${digest} is not the authorized ${file.sha256}`);
  return plain;
}

/** A range in milliseconds, a value picked uniformly inside it. */
export type Span = readonly [number, number];

export interface MachineBehaviour {
  /** How long a job prints (before any pause). */
  jobMs: Span;
  /** How long a pause lasts. */
  pauseMs: Span;
  /** Share of jobs that pause once (0–1). */
  pauseRate: number;
  /** Share of jobs that fail (0–1). */
  failureRate: number;
  /** Share of jobs that are cancelled (0–1). */
  cancelRate: number;
  /** Parts per job (at most what the licence has left). */
  partsPerJob: Span;
  /** Wait between looks for work while idle, and between looks for approval. */
  pollMs: number;
  /** Upload a machine-data file (`/mpf/dtl`) after each ended job. */
  uploadMachineData: boolean;
}

export const defaultBehaviour: MachineBehaviour = {
  jobMs: [20_000, 60_000],
  pauseMs: [3_000, 10_000],
  pauseRate: 0.15,
  failureRate: 0.1,
  cancelRate: 0.02,
  partsPerJob: [1, 4],
  pollMs: 5_000,
  uploadMachineData: true,
};

export type MachineState = 'unregistered' | 'awaitingApproval' | 'idle' | 'printing' | 'offline';

/** What a machine keeps between runs (its state file): keys, registration, chain head, parts made. */
export interface MachineRecord {
  apl: TEnforceApl;
  signingKeyPem: string;
  encryptionKeyPem: string;
  deviceId: string | null;
  head: string | null;
  jobCounter: number;
  made: Record<string, number>;
}

export interface MachineOptions {
  serverUrl: string;
  /** The CA that issues the machine's certificates (a CA file, or a development CA). */
  ca: DevelopmentCa;
  /** Roots the machine trusts for signed authorizations; default the CA's certificate. */
  trustAnchors?: string[];
  identity?: Partial<TEnforceApl['deviceIdentity']>;
  parameters?: TDeviceParameter[];
  behaviour?: Partial<MachineBehaviour>;
  /** Where the machine keeps its record (a JSON file, mode 0600); none: nothing survives the process. */
  stateFile?: string;
  random?: () => number;
  log?: (line: string) => void;
  /** Called with every event the server accepted. */
  onEvent?: (event: TCanonicalTraceEvent) => void;
  /** Awaited before the machine looks at its licences for the next job (tests hold a machine here). */
  beforeJob?: () => Promise<void>;
}

interface Held {
  terms: AuthorizationTerms | null;
  /** The quantity the server lists now (lost parts counted against the licence lower it). */
  quantity: number;
  expiration: string | null;
  revoked: boolean;
  refused: string | null;
}

/**
 * The parts a licence allows: the quantity the server lists now (lowered when broken parts count),
 * never more than the signed authorization says.
 */
function allowed(held: Held): number {
  return Math.min(held.quantity, held.terms?.quantity ?? 0);
}

export interface MachineStats {
  events: number;
  jobsEnded: number;
  jobsFailed: number;
  jobsCancelled: number;
  partsMade: number;
  partsLost: number;
  machineDataFiles: number;
  refused: number;
  errors: number;
}

/** Every count at zero. */
export function emptyStats(): MachineStats {
  return {
    events: 0,
    jobsEnded: 0,
    jobsFailed: 0,
    jobsCancelled: 0,
    partsMade: 0,
    partsLost: 0,
    machineDataFiles: 0,
    refused: 0,
    errors: 0,
  };
}

/**
 * A licensed printer behind the partner interfaces: registers, waits for approval, pulls and
 * verifies its authorizations and designs, prints within its licences and reports every step as a
 * signed, hash-chained event. `run()` until `stop()`.
 */
export class SimulatedMachine {
  readonly client: PartnerClient;
  readonly behaviour: MachineBehaviour;
  state: MachineState = 'unregistered';
  readonly stats: MachineStats = emptyStats();
  private record: MachineRecord | undefined;
  private credentialsValue: MachineCredentials | undefined;
  private chain: EventChain | undefined;
  private readonly held = new Map<string, Held>();
  private stopping = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private readonly random: () => number;

  constructor(readonly options: MachineOptions) {
    this.client = new PartnerClient(options.serverUrl);
    this.behaviour = { ...defaultBehaviour, ...options.behaviour };
    this.random = options.random ?? Math.random;
  }

  get deviceId(): string {
    if (!this.record?.deviceId) throw new Error('the machine is not registered yet');
    return this.record.deviceId;
  }

  get credentials(): MachineCredentials {
    if (!this.credentialsValue) throw new Error('the machine has no keys yet');
    return this.credentialsValue;
  }

  get name(): string {
    return this.record?.apl.deviceIdentity.name ?? this.options.identity?.name ?? 'machine';
  }

  /** Parts the machine made under each authorization (ended jobs). */
  get made(): Readonly<Record<string, number>> {
    return this.record?.made ?? {};
  }

  private log(line: string): void {
    this.options.log?.(`[${this.name}] ${line}`);
  }

  private async save(): Promise<void> {
    if (!this.options.stateFile || !this.record) return;
    const temporary = `${this.options.stateFile}.${process.pid}.tmp`;
    await fs.writeFile(temporary, JSON.stringify(this.record, null, 2), { mode: 0o600 });
    await fs.rename(temporary, this.options.stateFile);
  }

  /** Keys and certificates (kept from the state file, else new), then `/apl/registration/add` once. */
  async register(): Promise<string> {
    if (!this.record && this.options.stateFile) {
      try {
        this.record = JSON.parse(await fs.readFile(this.options.stateFile, 'utf8')) as MachineRecord;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    if (!this.record) {
      const credentials = await createMachineCredentials(this.options.ca, {
        identity: this.options.identity ?? {},
        parameters: this.options.parameters ?? [],
      });
      this.record = {
        apl: credentials.apl,
        signingKeyPem: credentials.signingKeyPem,
        encryptionKeyPem: credentials.encryptionKeyPem,
        deviceId: null,
        head: null,
        jobCounter: 0,
        made: {},
      };
      if (this.options.stateFile) await fs.mkdir(path.dirname(this.options.stateFile), { recursive: true });
    }
    this.credentialsValue = credentialsOf(this.record.apl, this.record.signingKeyPem, this.record.encryptionKeyPem);
    if (!this.record.deviceId) {
      this.record.deviceId = await this.client.register(this.credentialsValue);
      this.log(`registered as ${this.record.deviceId}; waiting for an administrator to approve it`);
    }
    this.chain = new EventChain(this.record.deviceId, this.record.head);
    this.state = 'awaitingApproval';
    await this.save();
    return this.record.deviceId;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private pick([low, high]: Span): number {
    return Math.round(low + (high - low) * this.random());
  }

  private async report(kind: TTraceEventKind, fields: EventFields = {}): Promise<void> {
    const event = this.chain!.next(kind, fields);
    await this.client.event(this.credentials, event);
    await this.reported([event]);
  }

  /** Events that happened together, chained in this order and sent in one batch-signed request (`{batch: […]}`). */
  private async reportBatch(events: [TTraceEventKind, EventFields][]): Promise<void> {
    const chained = events.map(([kind, fields]) => this.chain!.next(kind, fields));
    await this.client.events(this.credentials, this.deviceId, chained);
    await this.reported(chained);
  }

  /** The server took these events: the chain's head is kept, they are counted and handed on. */
  private async reported(events: TCanonicalTraceEvent[]): Promise<void> {
    this.record!.head = this.chain!.head;
    this.stats.events += events.length;
    await this.save();
    for (const event of events) this.options.onEvent?.(event);
  }

  /** Waits until the server serves this machine's STP pulls (an administrator approved it). */
  async waitForApproval(): Promise<boolean> {
    while (!this.stopping) {
      try {
        await this.client.stp(this.credentials, this.deviceId, '/stp/authorization/list', { numberOfItems: 1 });
        this.log('approved');
        return true;
      } catch (error) {
        if (!(error instanceof PartnerError) || error.errorToken !== 'deviceNotApproved') throw error;
      }
      await this.sleep(this.behaviour.pollMs);
    }
    return false;
  }

  private async listAuthorizations(): Promise<TStpAuthorization[]> {
    const all: TStpAuthorization[] = [];
    for (let pageNum = 1; ; pageNum += 1) {
      const page = await this.client.stpJson<TPage<TStpAuthorization>>(
        this.credentials,
        this.deviceId,
        '/stp/authorization/list',
        {
          pageNum,
          numberOfItems: 100,
        },
      );
      all.push(...page.data);
      if (pageNum >= page.totalNumOfPages) return all;
    }
  }

  /** Downloads, verifies and opens a new authorization and its design; a refused one is never printed. */
  private async take(entry: TStpAuthorization): Promise<Held> {
    const held: Held = { terms: null, quantity: entry.quantity, expiration: entry.expiration, revoked: false, refused: null };
    const { authorizationId } = entry;
    try {
      const xml = await (
        await this.client.stp(this.credentials, this.deviceId, '/stp/authorization/download', { authorizationId })
      ).text();
      const terms = readAuthorization(xml, {
        trustAnchors: this.options.trustAnchors ?? [this.options.ca.certificatePem],
        deviceId: this.deviceId,
        encryptionCertificatePem: this.record!.apl.encryptionCertificate,
      });
      if (terms.authorizationId !== authorizationId)
        throw new AuthorizationRefused('malformed', 'Another authorization was served');
      if (terms.design.files.length === 0) {
        throw new DesignRefused('the authorization names no design file: the design is not on the issuing instance');
      }
      await this.report('licenceReceivedByMachine', { authorizationId, data: { orderNumber: terms.orderNumber.slice(0, 1024) } });
      const received: [TTraceEventKind, EventFields][] = [];
      for (const file of terms.design.files) {
        const response = await this.client.stp(this.credentials, this.deviceId, '/stp/design/download', {
          authorizationId,
          fileId: file.fileId,
        });
        await openDesignFile(Buffer.from(await response.arrayBuffer()), file, this.record!.encryptionKeyPem);
        if (!file.isPublic) received.push(['privateFileDecrypted', { authorizationId, data: { fileId: file.fileId } }]);
      }
      received.push([
        'designPackageReceivedByMachine',
        { authorizationId, data: { dsiId: terms.design.dsiId, files: String(terms.design.files.length) } },
      ]);
      // the design's files and its receipt, reported together in one batch-signed request
      await this.reportBatch(received);
      held.terms = terms;
      this.log(`licence ${authorizationId}: ${terms.quantity} of ${terms.design.designName}, design verified`);
    } catch (error) {
      if (error instanceof AuthorizationRefused || error instanceof DesignRefused) {
        held.refused = error.message;
        this.stats.refused += 1;
        this.log(`refused licence ${authorizationId}: ${error.message}`);
      } else if (error instanceof PartnerError && error.errorToken === 'authorizationNotAvailable') {
        held.revoked = true;
      } else throw error;
    }
    return held;
  }

  /** Looks at the licences the server lists now: new ones are taken, revoked or lowered ones noted. */
  async sync(): Promise<void> {
    for (const entry of await this.listAuthorizations()) {
      let held = this.held.get(entry.authorizationId);
      if (!held) {
        if (entry.state === 'revoked') {
          held = { terms: null, quantity: 0, expiration: entry.expiration, revoked: true, refused: null };
        } else held = await this.take(entry);
        this.held.set(entry.authorizationId, held);
      }
      if (entry.state === 'revoked' && !held.revoked) {
        this.log(`licence ${entry.authorizationId} revoked: no further jobs`);
        // a licence it held: the revocation it received goes on its record (spec §4 revocation received)
        if (held.terms) await this.report('revocationReceived', { authorizationId: entry.authorizationId });
      }
      held.revoked ||= entry.state === 'revoked';
      held.quantity = entry.quantity;
      held.expiration = entry.expiration;
    }
  }

  /** A licence with parts left, not expired, not revoked, whose design opened. */
  private nextLicence(): { authorizationId: string; terms: AuthorizationTerms; left: number } | undefined {
    const now = new Date().toISOString();
    for (const [authorizationId, held] of this.held) {
      if (!held.terms || held.revoked || held.refused) continue;
      const expiration = held.expiration ?? held.terms.expiration;
      if (expiration !== null && expiration <= now) continue;
      const left = allowed(held) - (this.record!.made[authorizationId] ?? 0);
      if (left > 0) return { authorizationId, terms: held.terms, left };
    }
    return undefined;
  }

  private async printJob(licence: { authorizationId: string; terms: AuthorizationTerms; left: number }): Promise<void> {
    const { authorizationId, terms } = licence;
    const quantity = Math.min(licence.left, Math.max(1, this.pick(this.behaviour.partsPerJob)));
    this.record!.jobCounter += 1;
    const jobId = `${this.record!.apl.deviceIdentity.id}-job-${this.record!.jobCounter}`
      .replace(/[^A-Za-z0-9._:-]/g, '-')
      .slice(0, 128);
    const job = { authorizationId, jobId, quantity };
    this.state = 'printing';
    await this.report('jobStarted', { ...job, data: jobSettings(terms.deviceParameters, this.random) });
    const total = this.pick(this.behaviour.jobMs);
    const roll = this.random();
    const outcome =
      roll < this.behaviour.failureRate
        ? 'fail'
        : roll < this.behaviour.failureRate + this.behaviour.cancelRate
          ? 'cancel'
          : 'end';
    const until = outcome === 'end' ? 1 : 0.2 + 0.6 * this.random();
    if (this.random() < this.behaviour.pauseRate && !this.stopping) {
      await this.sleep(total * until * 0.5);
      if (!this.stopping) {
        await this.report('jobPaused', { ...job, data: { reason: 'filament runout' } });
        await this.sleep(this.pick(this.behaviour.pauseMs));
        await this.report('jobResumed', job);
        await this.sleep(total * until * 0.5);
      }
    } else await this.sleep(total * until);
    if (this.stopping) {
      await this.report('jobCancelled', { ...job, data: { reason: 'machine shutting down' } });
      this.stats.jobsCancelled += 1;
      this.stats.partsLost += quantity;
    } else if (outcome === 'fail') {
      await this.report('jobFailed', { ...job, data: { reason: 'layer shift detected' } });
      this.stats.jobsFailed += 1;
      this.stats.partsLost += quantity;
    } else if (outcome === 'cancel') {
      await this.report('jobCancelled', { ...job, data: { reason: 'cancelled by operator' } });
      this.stats.jobsCancelled += 1;
      this.stats.partsLost += quantity;
    } else {
      await this.report('jobEnded', { ...job, data: { durationMs: String(total) } });
      this.record!.made[authorizationId] = (this.record!.made[authorizationId] ?? 0) + quantity;
      this.stats.jobsEnded += 1;
      this.stats.partsMade += quantity;
      await this.save();
      if (this.behaviour.uploadMachineData) await this.uploadJobData(job, total);
    }
    this.state = 'idle';
  }

  /** The job's log as a CSV file through `/stp/upload/token` and `/mpf/dtl`. */
  private async uploadJobData(
    job: { authorizationId: string; jobId: string; quantity: number },
    durationMs: number,
  ): Promise<void> {
    const { token } = await this.client.stpJson<{ token: string }>(this.credentials, this.deviceId, '/stp/upload/token', {
      authorizationId: job.authorizationId,
      purpose: 'dtl',
    });
    const rows = ['seconds,nozzleC,bedC,layer'];
    const samples = Math.max(2, Math.min(120, Math.round(durationMs / 1000)));
    for (let i = 0; i < samples; i += 1) {
      rows.push(
        `${i},${(215 + this.random() * 2).toFixed(1)},${(60 + this.random()).toFixed(1)},${Math.floor((i * 200) / samples)}`,
      );
    }
    await this.client.uploadMachineData(token, `${job.jobId}.csv`, Buffer.from(`${rows.join('\n')}\n`));
    this.stats.machineDataFiles += 1;
  }

  /** Registers (once), waits for approval, then prints until {@link stop}; reports offline at the end. */
  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  private async loop(): Promise<void> {
    if (!this.record?.deviceId) await this.register();
    if (!(await this.waitForApproval())) return;
    let idleReported = false;
    this.state = 'idle';
    while (!this.stopping) {
      try {
        await this.options.beforeJob?.();
        if (this.stopping) break;
        await this.sync();
        const licence = this.nextLicence();
        if (licence) {
          idleReported = false;
          await this.printJob(licence);
          continue;
        }
        if (!idleReported) {
          await this.report('machineIdle');
          idleReported = true;
        }
      } catch (error) {
        this.stats.errors += 1;
        this.state = 'idle';
        this.log(`error: ${(error as Error).message}`);
      }
      await this.sleep(this.behaviour.pollMs);
    }
    try {
      await this.report('machineOffline', { data: { reason: 'shutdown' } });
    } catch (error) {
      this.log(`could not report offline: ${(error as Error).message}`);
    }
    this.state = 'offline';
  }

  /** Stops after the current step (a running job is cancelled and reported) and reports offline. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.state = 'offline';
  }

  /** The licences this machine holds: parts left to print, how many it refused, whether it knows `authorizationId`. */
  licences(authorizationId?: string): { left: number; refused: number; held: number; knows: boolean } {
    let left = 0;
    let refused = 0;
    const now = new Date().toISOString();
    for (const [id, held] of this.held) {
      if (held.refused) refused += 1;
      const expiration = held.expiration ?? held.terms?.expiration ?? null;
      if (!held.terms || held.revoked || held.refused || (expiration !== null && expiration <= now)) continue;
      left += Math.max(0, allowed(held) - (this.record!.made[id] ?? 0));
    }
    return { left, refused, held: this.held.size, knows: authorizationId !== undefined && this.held.has(authorizationId) };
  }

  /** True when no licence has anything left to print (every one used up, revoked, expired or refused). */
  isDone(): boolean {
    return this.state !== 'printing' && this.held.size > 0 && this.nextLicence() === undefined;
  }
}
