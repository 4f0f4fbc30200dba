import type { z } from 'zod';
import type { Database } from '../db/database.js';
import type { JobRow } from '../db/schema-jobs.js';
import { takeOverDeadLeases } from './dead-leases.js';
import { JobsRepository } from './jobs.repository.js';
import type { JobsService } from './jobs.service.js';
import { defaultRetryPolicy, errorText, type RetryPolicy, retryDelayMs, slotDedupeKey, slotStart } from './job-timing.js';
import { leaseOwnerName } from './lease-owner.js';

/** What a handler gets besides its payload. */
export interface JobContext {
  jobId: number;
  /** 1 on the first run, counting runs a dead runner started. */
  attempt: number;
  /** Aborted when the runner stops and the stop's wait ran out: wrap up, the job will run again. */
  signal: AbortSignal;
}

/** How to run one kind of job. */
export interface JobDefinition<P> {
  /** Checks the stored payload; a payload it refuses fails the job at once (no retries). */
  payload: z.ZodType<P>;
  /** Runs the job; throwing retries it later (with back-off) until it is out of attempts. */
  run(payload: P, context: JobContext): Promise<void>;
  /**
   * Called once the job is `failed` for good with a payload the schema took: its last attempt
   * threw, or its runner died during it (then `run` never learns it was the last). For a job that
   * shows its progress elsewhere, to leave that in a final state; its failure is logged, not retried.
   */
  givenUp?(payload: P, reason: string): Promise<void>;
}

/** A job added once per period by whichever process gets there first. */
export interface Schedule {
  kind: string;
  everySeconds: number;
  payload?: unknown;
  /** Also add one job when the runner starts (whatever the period). */
  atStart?: boolean;
}

/**
 * Background work that is not a row of `jobs` but starts, stops and is run by tests with the
 * runner (the outbox's delivery worker): `runDue` does what is due now and answers how much.
 */
export interface BackgroundWorker {
  start(): void;
  stop(): Promise<void>;
  runDue(): Promise<number>;
  /** Lets the leases of this machine's dead workers run out now (lease-owner.ts); called with the runner's heartbeat. */
  expireDeadLeases?(): Promise<void>;
}

export interface JobLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface JobRunnerOptions {
  concurrency: number;
  pollIntervalMs: number;
  leaseSeconds: number;
  stopTimeoutMs: number;
  log: JobLog;
  retry?: RetryPolicy;
  /** Names this runner's leases; default host, process id, a random part and how to tell the process died (lease-owner.ts). */
  owner?: string;
  now?: () => Date;
  random?: () => number;
}

interface Running {
  promise: Promise<void>;
  abort: AbortController;
}

/**
 * Runs the jobs of the `jobs` table in this process: claims due jobs of the kinds registered
 * here with a lease, runs them at most `concurrency` at a time, renews their leases while they
 * run, and records the outcome. Any number of runners (processes) may share one database; each
 * job runs in one of them at a time. See docs/background-jobs.md.
 */
export class JobRunner {
  readonly owner: string;
  private readonly definitions = new Map<string, JobDefinition<unknown>>();
  private readonly schedules: Schedule[] = [];
  private readonly workers: BackgroundWorker[] = [];
  private readonly lastSlot = new Map<string, number>();
  private readonly running = new Map<number, Running>();
  private readonly repository: JobsRepository;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private state: 'idle' | 'started' | 'stopping' = 'idle';
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private tick: Promise<void> | undefined;
  private wakeAgain = false;

  constructor(
    private readonly database: Database,
    private readonly jobs: JobsService,
    private readonly options: JobRunnerOptions,
  ) {
    this.repository = new JobsRepository(database.db, database.dialect);
    this.owner = options.owner ?? leaseOwnerName();
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.retry = options.retry ?? defaultRetryPolicy;
  }

  /** Registers the handler of a kind; this runner claims only kinds it has a handler for. */
  register<P>(kind: string, definition: JobDefinition<P>): void {
    if (this.definitions.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.definitions.set(kind, definition as JobDefinition<unknown>);
  }

  /** Adds a job of `kind` every `everySeconds` (periods counted from the epoch, so once across processes). */
  schedule(schedule: Schedule): void {
    if (!this.definitions.has(schedule.kind)) throw new Error(`job kind ${schedule.kind} has no handler`);
    this.schedules.push(schedule);
  }

  /** Adds a worker started, stopped and run (`runDue`) with the runner. */
  attach(worker: BackgroundWorker): void {
    this.workers.push(worker);
  }

  /** Starts polling. Tests leave the runner stopped and call {@link runDue}. */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    for (const schedule of this.schedules) {
      if (schedule.atStart) await this.jobs.enqueue(this.database.db, schedule.kind, schedule.payload ?? null);
    }
    await this.expireDeadLeases();
    this.state = 'started';
    this.heartbeat = setInterval(() => this.beat(), (this.options.leaseSeconds * 1000) / 3);
    this.heartbeat.unref();
    this.wake();
    for (const worker of this.workers) worker.start();
    this.options.log.info(`job runner ${this.owner} started (${this.options.concurrency} at a time)`);
  }

  /**
   * Every third of a lease: renews the leases of the jobs running here, and takes up those of this
   * machine's runners that died meanwhile (another server process on the same host) without waiting
   * for their leases to run out.
   */
  private beat(): void {
    void this.renewLeases();
    void this.expireDeadLeases();
    for (const worker of this.workers) void worker.expireDeadLeases?.();
  }

  /** Lets the leases of this machine's dead runners run out now (a restart takes up their jobs at once). */
  private expireDeadLeases(): Promise<void> {
    return takeOverDeadLeases(this.database.db, 'jobs', this.now(), { owner: this.owner, log: this.options.log });
  }

  /**
   * Stops claiming, waits up to `stopTimeoutMs` for the running jobs, then aborts the ones still
   * running and hands their leases back so another runner takes them at once.
   */
  async stop(): Promise<void> {
    if (this.state !== 'started') return;
    this.state = 'stopping';
    clearTimeout(this.timer);
    await Promise.all(this.workers.map((worker) => worker.stop()));
    await this.tick;
    const settled = Promise.allSettled([...this.running.values()].map((job) => job.promise));
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((resolve) => (timeout = setTimeout(resolve, this.options.stopTimeoutMs)))]);
    clearTimeout(timeout);
    clearInterval(this.heartbeat);
    const left = [...this.running.keys()];
    if (left.length > 0) {
      for (const job of this.running.values()) job.abort.abort();
      try {
        await this.repository.release(left, this.owner, this.nowIso());
        this.options.log.warn(`job runner ${this.owner} stopped with jobs ${left.join(', ')} still running: released`);
      } catch (error) {
        this.options.log.error(`job runner ${this.owner} could not release jobs ${left.join(', ')}: ${errorText(error)}`);
      }
    }
    this.state = 'idle';
    this.options.log.info(`job runner ${this.owner} stopped`);
  }

  /**
   * Adds the due recurring jobs, then claims and runs due jobs until none is left; answers how
   * many ran. For tests and tools: a started runner does this by itself.
   */
  async runDue(): Promise<number> {
    await this.enqueueScheduled();
    let ran = 0;
    for (const worker of this.workers) ran += await worker.runDue();
    for (;;) {
      const claimed = await this.claim(this.options.concurrency);
      if (claimed.length === 0) return ran;
      await Promise.all(claimed.map((job) => this.execute(job, new AbortController())));
      ran += claimed.length;
    }
  }

  /** Looks for work now (after a job finished, or when the poll interval passed). */
  private wake(): void {
    if (this.state !== 'started') return;
    if (this.tick) {
      this.wakeAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.tick = this.poll().finally(() => {
      this.tick = undefined;
      if (this.state !== 'started') return;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.options.pollIntervalMs);
        this.timer.unref();
      }
    });
  }

  private async poll(): Promise<void> {
    try {
      await this.enqueueScheduled();
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) return;
      for (const job of await this.claim(free)) {
        const abort = new AbortController();
        const promise = this.execute(job, abort).finally(() => {
          this.running.delete(job.id);
          this.wake();
        });
        this.running.set(job.id, { promise, abort });
      }
    } catch (error) {
      this.options.log.error(`job runner ${this.owner}: looking for jobs failed: ${errorText(error)}`);
    }
  }

  private claim(limit: number): Promise<JobRow[]> {
    const now = this.now();
    return this.repository.claim({
      owner: this.owner,
      kinds: [...this.definitions.keys()],
      now: now.toISOString(),
      leaseUntil: this.leaseUntil(now),
      limit,
    });
  }

  /** Runs one claimed job and records the outcome; never rejects. */
  private async execute(job: JobRow, abort: AbortController): Promise<void> {
    const id = Number(job.id);
    const label = `job ${id} (${job.kind}, attempt ${job.attempts}/${job.max_attempts})`;
    try {
      const definition = this.definitions.get(job.kind);
      if (!definition) throw new Error(`no handler for job kind ${job.kind}`);
      if (job.attempts > job.max_attempts) {
        const reason = `its runner stopped answering during the last attempt${job.last_error ? `; before: ${job.last_error}` : ''}`;
        if (await this.repository.fail(id, this.owner, errorText(reason), this.nowIso())) {
          await this.givenUp(job, definition, errorText(reason), label);
        }
        this.options.log.error(`${label} failed: ${reason}`);
        return;
      }
      const payload = definition.payload.safeParse(parseJson(job.payload));
      if (!payload.success) {
        await this.repository.fail(id, this.owner, errorText(`invalid payload: ${payload.error.message}`), this.nowIso());
        this.options.log.error(`${label} failed: invalid payload`);
        return;
      }
      let failure: { error: unknown } | undefined;
      try {
        await definition.run(payload.data, { jobId: id, attempt: job.attempts, signal: abort.signal });
      } catch (error) {
        failure = { error };
      }
      // Aborted by a stop that ran out of time: the stop hands the job back, whatever the handler did.
      if (abort.signal.aborted) return;
      if (failure) await this.recordFailure(job, definition, failure.error, label);
      else await this.repository.complete(id, this.owner, this.nowIso());
    } catch (error) {
      this.options.log.error(`${label}: recording the outcome failed: ${errorText(error)}`);
    }
  }

  private async recordFailure(job: JobRow, definition: JobDefinition<unknown>, error: unknown, label: string): Promise<void> {
    const id = Number(job.id);
    const text = errorText(error);
    if (job.attempts >= job.max_attempts) {
      if (await this.repository.fail(id, this.owner, text, this.nowIso())) await this.givenUp(job, definition, text, label);
      this.options.log.error(`${label} failed for good: ${text}`);
      return;
    }
    const now = this.now();
    const runAt = new Date(now.getTime() + retryDelayMs(job.attempts, this.retry, this.random));
    await this.repository.retryLater(id, this.owner, text, runAt.toISOString(), now.toISOString());
    this.options.log.warn(`${label} failed, next attempt at ${runAt.toISOString()}: ${text}`);
  }

  /** Tells the job's definition it was given up (its payload checked first); a failure there is logged. */
  private async givenUp(job: JobRow, definition: JobDefinition<unknown>, reason: string, label: string): Promise<void> {
    if (!definition.givenUp) return;
    const payload = definition.payload.safeParse(parseJson(job.payload));
    if (!payload.success) return;
    try {
      await definition.givenUp(payload.data, reason);
    } catch (error) {
      this.options.log.error(`${label}: recording that it was given up failed: ${errorText(error)}`);
    }
  }

  /** Adds the job of the current period of each schedule whose period this process has not seen. */
  private async enqueueScheduled(): Promise<void> {
    const now = this.now();
    for (const schedule of this.schedules) {
      const slot = slotStart(now, schedule.everySeconds);
      if (this.lastSlot.get(schedule.kind) === slot.getTime()) continue;
      await this.jobs.enqueue(this.database.db, schedule.kind, schedule.payload ?? null, {
        runAt: slot,
        dedupeKey: slotDedupeKey(schedule.kind, slot),
      });
      this.lastSlot.set(schedule.kind, slot.getTime());
    }
  }

  private async renewLeases(): Promise<void> {
    try {
      const now = this.now();
      await this.repository.renewLeases([...this.running.keys()], this.owner, this.leaseUntil(now), now.toISOString());
    } catch (error) {
      this.options.log.warn(`job runner ${this.owner}: renewing leases failed: ${errorText(error)}`);
    }
  }

  private leaseUntil(now: Date): string {
    return new Date(now.getTime() + this.options.leaseSeconds * 1000).toISOString();
  }

  private nowIso(): string {
    return this.now().toISOString();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
