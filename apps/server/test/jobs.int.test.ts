import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import type { TJob, TPage } from '@manifold/contract';
import { loadConfig, parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type Database } from '../src/db/database.js';
import type { JobRow } from '../src/db/schema-jobs.js';
import { JOB_HISTORY_PURGE } from '../src/jobs/job-history-purge.js';
import { type JobDefinition, JobRunner, type JobRunnerOptions } from '../src/jobs/job-runner.js';
import { jobsModule } from '../src/jobs/jobs.module.js';
import { leaseOwnerName } from '../src/jobs/lease-owner.js';
import { JobsRepository } from '../src/jobs/jobs.repository.js';
import { JobsService } from '../src/jobs/jobs.service.js';
import { SESSION_PURGE } from '../src/jobs/session-purge.js';
import { OUTBOX_PURGE } from '../src/modules/outbox/outbox-purge.job.js';
import { STORAGE_SWEEP } from '../src/jobs/storage-sweep.js';
import { STP_NONCE_PURGE } from '../src/jobs/stp-nonce-purge.js';
import { isoNow } from '../src/lib/time.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { startServer } from './helpers/server-process.js';
import { adminPassword, describeEachDatabase } from './helpers/test-app.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** Later than any real clock the suite runs on: jobs enqueued now are due. */
const T0 = new Date('2036-05-04T10:15:00.000Z');

/** A clock the test moves by hand. */
function manualClock(start = T0) {
  let now = start;
  return {
    now: () => now,
    advance(seconds: number) {
      now = new Date(now.getTime() + seconds * 1000);
    },
  };
}

/** A runner with only the kinds a test registers; retries wait 60 s, doubling (no jitter). */
function runner(database: Database, options: Partial<JobRunnerOptions> = {}): JobRunner {
  return new JobRunner(database, new JobsService(database), {
    concurrency: 4,
    pollIntervalMs: 20,
    leaseSeconds: 30,
    stopTimeoutMs: 2000,
    log: quiet,
    retry: { baseMs: 60_000, maxMs: 3_600_000 },
    random: () => 1,
    ...options,
  });
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.each(inject('databases'))('job runner [%s]', (kind) => {
  let dataDir: string;
  let drop: (() => Promise<void>) | undefined;
  /** Two connections (pools) to one database: two processes, as far as the database can tell. */
  let first: Database;
  let second: Database;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-jobs-'));
    let url = `sqlite:${path.join(dataDir, 'jobs.db')}`;
    if (kind === 'postgres' || kind === 'mysql') {
      const scratch = await createScratchDatabase(kind);
      url = scratch.url;
      drop = scratch.drop;
    }
    const target = parseDatabaseUrl(url, dataDir);
    first = createDatabase(target);
    await first.migrate();
    second = createDatabase(target);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await drop?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await first.db.deleteFrom('jobs').execute();
  });

  const jobs = () => new JobsService(first);
  const row = (id: number | undefined) => new JobsRepository(first.db, first.dialect).findById(id!);

  function recording(runs: unknown[], fail?: (attempt: number) => boolean): JobDefinition<{ n: number }> {
    return {
      payload: z.object({ n: z.number() }),
      async run(payload, { attempt }) {
        runs.push(payload.n);
        if (fail?.(attempt)) throw new Error(`boom ${attempt}`);
      },
    };
  }

  it('runs an enqueued job once and marks it done', async () => {
    const runs: unknown[] = [];
    const worker = runner(first);
    worker.register('test.echo', recording(runs));
    const id = await jobs().enqueue(first.db, 'test.echo', { n: 7 });
    expect(await worker.runDue()).toBe(1);
    expect(await worker.runDue()).toBe(0);
    expect(runs).toEqual([7]);
    expect(await row(id)).toMatchObject({ state: 'done', attempts: 1, lease_owner: null, last_error: null });
  });

  it('does not run a job before its time, nor a kind it has no handler for', async () => {
    const clock = manualClock();
    const runs: unknown[] = [];
    const worker = runner(first, { now: clock.now });
    worker.register('test.echo', recording(runs));
    await jobs().enqueue(first.db, 'test.echo', { n: 1 }, { runAt: new Date(T0.getTime() + 60_000) });
    const other = await jobs().enqueue(first.db, 'test.unknown', { n: 2 });
    expect(await worker.runDue()).toBe(0);
    clock.advance(60);
    expect(await worker.runDue()).toBe(1);
    expect(runs).toEqual([1]);
    expect(await row(other)).toMatchObject({ state: 'pending', attempts: 0 });
  });

  it('adds a job in the caller transaction: it exists only when the transaction commits', async () => {
    await expect(
      first.transaction(async (trx) => {
        await jobs().enqueue(trx, 'test.echo', { n: 1 });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await first.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
    const id = await first.transaction((trx) => jobs().enqueue(trx, 'test.echo', { n: 2 }));
    expect(await row(id)).toMatchObject({ kind: 'test.echo', payload: '{"n":2}', state: 'pending' });
  });

  it('adds one job per dedupe key; a duplicate does nothing and the transaction goes on', async () => {
    const ids = await first.transaction(async (trx) => [
      await jobs().enqueue(trx, 'test.echo', { n: 1 }, { dedupeKey: 'once' }),
      await jobs().enqueue(trx, 'test.echo', { n: 2 }, { dedupeKey: 'once' }),
      await jobs().enqueue(trx, 'test.echo', { n: 3 }),
    ]);
    expect(ids[0]).toEqual(expect.any(Number));
    expect(ids[1]).toBeUndefined();
    expect(ids[2]).toEqual(expect.any(Number));
    const rows = await first.db.selectFrom('jobs').select(['payload', 'dedupe_key']).orderBy('id').execute();
    expect(rows).toEqual([
      { payload: '{"n":1}', dedupe_key: 'once' },
      { payload: '{"n":3}', dedupe_key: null },
    ]);
  });

  it('adds every job of processes enqueueing and claiming at once, without a deadlock reaching them', async () => {
    // two instances starting together: each enqueues its start jobs while the other's runner
    // claims (InnoDB broke such an insert and claim with a deadlock, and the instance did not
    // start); every round sends eight inserts through two pools, with a claim on each
    const service = [new JobsService(first), new JobsService(second)];
    const claims = [new JobsRepository(first.db, first.dialect), new JobsRepository(second.db, second.dialect)];
    const claim = (i: number) =>
      claims[i]!.claim({ owner: `runner ${i}`, kinds: ['test.other'], now: isoNow(), leaseUntil: isoNow(), limit: 5 });
    for (let round = 0; round < 25; round += 1) {
      const [ids] = await Promise.all([
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            service[i % 2]!.enqueue(
              (i % 2 ? second : first).db,
              'test.echo',
              { n: i },
              i < 4 ? {} : { dedupeKey: `round ${round}` },
            ),
          ),
        ),
        claim(0),
        claim(1),
      ]);
      expect(ids.slice(0, 4)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)]);
      expect(ids.slice(4).filter((id) => id !== undefined)).toHaveLength(1);
    }
    const counts = await first.db
      .selectFrom('jobs')
      .select((eb) => [eb.fn.countAll<number>().as('all'), eb.fn.count<number>('dedupe_key').as('keyed')])
      .executeTakeFirstOrThrow();
    expect({ all: Number(counts.all), keyed: Number(counts.keyed) }).toEqual({ all: 125, keyed: 25 });
  });

  it('retries a failed job later with exponential back-off, keeping the error', async () => {
    const clock = manualClock();
    const runs: unknown[] = [];
    const worker = runner(first, { now: clock.now });
    worker.register(
      'test.flaky',
      recording(runs, (attempt) => attempt < 3),
    );
    const id = await jobs().enqueue(first.db, 'test.flaky', { n: 1 });

    expect(await worker.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_error: 'boom 1',
      run_at: new Date(T0.getTime() + 60_000).toISOString(),
    });
    clock.advance(59);
    expect(await worker.runDue()).toBe(0);
    clock.advance(1);
    expect(await worker.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({
      state: 'pending',
      attempts: 2,
      last_error: 'boom 2',
      run_at: new Date(T0.getTime() + 60_000 + 120_000).toISOString(),
    });
    clock.advance(120);
    expect(await worker.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ state: 'done', attempts: 3 });
    expect(runs).toEqual([1, 1, 1]);
  });

  it('gives a job up as failed after its last attempt and lists it by state with its error', async () => {
    const clock = manualClock();
    const worker = runner(first, { now: clock.now });
    worker.register(
      'test.broken',
      recording([], () => true),
    );
    const id = await jobs().enqueue(first.db, 'test.broken', { n: 1 }, { maxAttempts: 2 });
    await worker.runDue();
    clock.advance(3600);
    await worker.runDue();
    clock.advance(3600);
    expect(await worker.runDue()).toBe(0);
    expect(await row(id)).toMatchObject({ state: 'failed', attempts: 2, last_error: 'boom 2' });

    const failed = await jobs().list({ pageNum: 1, numberOfItems: 10, state: 'failed' });
    expect(failed).toMatchObject({
      totalNumOfItems: 1,
      data: [{ id, kind: 'test.broken', payload: { n: 1 }, lastError: 'boom 2' }],
    });
    expect((await jobs().list({ pageNum: 1, numberOfItems: 10, state: 'done' })).totalNumOfItems).toBe(0);
  });

  it('fails a job with a payload its handler refuses at once, without running it', async () => {
    const runs: unknown[] = [];
    const worker = runner(first);
    worker.register('test.echo', recording(runs));
    const id = await jobs().enqueue(first.db, 'test.echo', { n: 'not a number' });
    await worker.runDue();
    expect(runs).toEqual([]);
    const job = await row(id);
    expect(job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(job?.last_error).toMatch(/^invalid payload/);
  });

  it('takes over the job of a runner that died once its lease ran out', async () => {
    const clock = manualClock();
    const runs: unknown[] = [];
    const repository = new JobsRepository(first.db, first.dialect);
    const id = await jobs().enqueue(first.db, 'test.echo', { n: 5 });
    const leaseUntil = new Date(T0.getTime() + 30_000).toISOString();
    const [taken] = await repository.claim({ owner: 'dead', kinds: ['test.echo'], now: T0.toISOString(), leaseUntil, limit: 10 });
    expect(taken).toMatchObject({ id, state: 'running', lease_owner: 'dead', lease_until: leaseUntil, attempts: 1 });

    const survivor = runner(second, { now: clock.now, owner: 'survivor' });
    survivor.register('test.echo', recording(runs));
    clock.advance(29);
    expect(await survivor.runDue()).toBe(0);
    clock.advance(2);
    expect(await survivor.runDue()).toBe(1);
    expect(runs).toEqual([5]);
    expect(await row(id)).toMatchObject({ state: 'done', attempts: 2 });
    // the dead runner coming back changes nothing
    expect(await repository.complete(id!, 'dead', clock.now().toISOString())).toBe(false);
    expect(await repository.retryLater(id!, 'dead', 'late', clock.now().toISOString(), clock.now().toISOString())).toBe(false);
    expect(await row(id)).toMatchObject({ state: 'done', last_error: null });
  });

  it("takes over at start the jobs a dead runner of this machine left leased, not another machine's", async () => {
    const runs: unknown[] = [];
    const repository = new JobsRepository(first.db, first.dialect);
    const leaseUntil = new Date(Date.now() + 3_600_000).toISOString();
    const claimAs = async (owner: string) => {
      const id = await jobs().enqueue(first.db, 'test.echo', { n: 7 });
      const [taken] = await repository.claim({
        owner,
        kinds: ['test.echo'],
        now: new Date().toISOString(),
        leaseUntil,
        limit: 1,
      });
      expect(taken).toMatchObject({ id, state: 'running', lease_owner: owner, attempts: 1 });
      return id;
    };
    // a process of this machine that stopped (no process has an id above Linux's highest) …
    const left = await claimAs(leaseOwnerName({ pid: 4_194_305, start: '1' }));
    // … and a runner of another machine (another process space), which may still be running
    const elsewhere = 'other-host:4194305:abcdef~1.00000000';
    const kept = await claimAs(elsewhere);

    const restarted = runner(second);
    restarted.register('test.echo', recording(runs));
    await restarted.start();
    try {
      await until(async () => (await row(left))?.state === 'done', "the dead runner's job done", 10_000);
    } finally {
      await restarted.stop();
    }
    expect(runs).toEqual([7]);
    expect(await row(left)).toMatchObject({ state: 'done', attempts: 2, lease_owner: null });
    expect(await row(kept)).toMatchObject({ state: 'running', attempts: 1, lease_owner: elsewhere, lease_until: leaseUntil });
  });

  it('takes over with its heartbeat the jobs of a runner of this machine that died while it ran', async () => {
    const runs: unknown[] = [];
    const running = runner(second, { leaseSeconds: 3 }); // a heartbeat every second
    running.register('test.echo', recording(runs));
    // an attached worker (the outbox's) is asked with the same heartbeat
    let workerAsked = 0;
    running.attach({
      start: () => undefined,
      stop: async () => undefined,
      runDue: async () => 0,
      expireDeadLeases: async () => void (workerAsked += 1),
    });
    await running.start();
    try {
      // another process on this host claims a job after this runner started, then dies
      const id = await jobs().enqueue(first.db, 'test.echo', { n: 8 }, { runAt: new Date(Date.now() + 3_600_000) });
      const dead = leaseOwnerName({ pid: 4_194_305, start: '1' });
      const leaseUntil = new Date(Date.now() + 3_600_000).toISOString();
      // the running runner's polls and heartbeat may hold the row for a moment, and a claim passes
      // a locked row by (SKIP LOCKED): the other process claims it once it is free
      let taken: JobRow | undefined;
      await until(
        async () => {
          [taken] = await new JobsRepository(first.db, first.dialect).claim({
            owner: dead,
            kinds: ['test.echo'],
            now: new Date(Date.now() + 3_600_001).toISOString(),
            leaseUntil,
            limit: 1,
          });
          return taken !== undefined;
        },
        "the other process's claim",
        5_000,
      );
      expect(taken).toMatchObject({ id, state: 'running', lease_owner: dead, attempts: 1 });
      await until(async () => (await row(id))?.state === 'done', "the dead runner's job done", 10_000);
    } finally {
      await running.stop();
    }
    expect(runs).toEqual([8]);
    expect(workerAsked).toBeGreaterThan(0);
  });

  it('renews the lease of a job that runs long, so no other runner takes it', async () => {
    const holder = runner(first, { leaseSeconds: 1, owner: 'holder' });
    let finish: () => void = () => undefined;
    const mayFinish = new Promise<void>((resolve) => (finish = resolve));
    holder.register('test.long', { payload: z.null(), run: () => mayFinish });
    const other = runner(second, { owner: 'other' });
    const otherRuns: unknown[] = [];
    other.register('test.long', { payload: z.null(), run: async () => void otherRuns.push('other ran it') });
    const id = await jobs().enqueue(first.db, 'test.long', null);
    await holder.start();
    try {
      await until(async () => (await row(id))?.state === 'running', 'the long job running');
      await sleep(1600); // past the first lease
      expect(await other.runDue()).toBe(0);
      const running = await row(id);
      expect(running).toMatchObject({ state: 'running', lease_owner: 'holder', attempts: 1 });
      expect(running!.lease_until! > new Date().toISOString()).toBe(true);
      finish();
      await until(async () => (await row(id))?.state === 'done', 'the long job done');
    } finally {
      finish();
      await holder.stop();
    }
    expect(otherRuns).toEqual([]);
  });

  it('fails a job whose runner died during its last attempt, without running it again', async () => {
    const clock = manualClock();
    const runs: unknown[] = [];
    const id = await jobs().enqueue(first.db, 'test.echo', { n: 5 }, { maxAttempts: 1 });
    await new JobsRepository(first.db, first.dialect).claim({
      owner: 'dead',
      kinds: ['test.echo'],
      now: T0.toISOString(),
      leaseUntil: new Date(T0.getTime() + 30_000).toISOString(),
      limit: 1,
    });
    const survivor = runner(second, { now: clock.now });
    survivor.register('test.echo', recording(runs));
    clock.advance(31);
    expect(await survivor.runDue()).toBe(1);
    expect(runs).toEqual([]);
    const job = await row(id);
    expect(job).toMatchObject({ state: 'failed', attempts: 2 });
    expect(job?.last_error).toMatch(/stopped answering/);
  });

  it('tells the definition a job was given up: its last attempt failed, or its runner died during it', async () => {
    const clock = manualClock();
    const givenUp: [number, string][] = [];
    const definition = (fail: boolean): JobDefinition<{ n: number }> => ({
      ...recording([], () => fail),
      async givenUp(payload, reason) {
        givenUp.push([payload.n, reason]);
      },
    });
    const worker = runner(first, { now: clock.now });
    worker.register('test.broken', definition(true));
    const broken = await jobs().enqueue(first.db, 'test.broken', { n: 1 }, { maxAttempts: 2 });
    await worker.runDue();
    expect(givenUp).toEqual([]);
    clock.advance(3600);
    await worker.runDue();
    expect(await row(broken)).toMatchObject({ state: 'failed', attempts: 2 });
    expect(givenUp).toEqual([[1, 'boom 2']]);

    const orphaned = await jobs().enqueue(first.db, 'test.echo', { n: 2 }, { maxAttempts: 1 });
    await new JobsRepository(first.db, first.dialect).claim({
      owner: 'dead',
      kinds: ['test.echo'],
      now: clock.now().toISOString(),
      leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
      limit: 1,
    });
    const survivor = runner(second, { now: clock.now });
    survivor.register('test.echo', definition(false));
    clock.advance(31);
    expect(await survivor.runDue()).toBe(1);
    expect(await row(orphaned)).toMatchObject({ state: 'failed', attempts: 2 });
    expect(givenUp).toEqual([
      [1, 'boom 2'],
      [2, 'its runner stopped answering during the last attempt'],
    ]);
  });

  it('adds a recurring job once per period, however many runners schedule it', async () => {
    const clock = manualClock();
    const runs: string[] = [];
    const runners = [runner(first, { now: clock.now }), runner(second, { now: clock.now })];
    for (const [index, worker] of runners.entries()) {
      worker.register('test.tick', {
        payload: z.null(),
        run: async () => void runs.push(`runner ${index}`),
      });
      worker.schedule({ kind: 'test.tick', everySeconds: 3600 });
    }
    await Promise.all(runners.map((worker) => worker.runDue()));
    clock.advance(1800);
    await Promise.all(runners.map((worker) => worker.runDue()));
    expect(runs).toHaveLength(1);
    clock.advance(3600);
    await Promise.all(runners.map((worker) => worker.runDue()));
    expect(runs).toHaveLength(2);
    const rows = await first.db.selectFrom('jobs').select(['dedupe_key', 'run_at', 'state']).orderBy('run_at').execute();
    expect(rows).toEqual([
      { dedupe_key: 'every:test.tick:2036-05-04T10:00:00.000Z', run_at: '2036-05-04T10:00:00.000Z', state: 'done' },
      { dedupe_key: 'every:test.tick:2036-05-04T11:00:00.000Z', run_at: '2036-05-04T11:00:00.000Z', state: 'done' },
    ]);
  });

  it('two runners competing for the same 200 jobs run each exactly once', async () => {
    const runs: { n: number; by: string }[] = [];
    const runners = [runner(first, { owner: 'one' }), runner(second, { owner: 'two' })];
    for (const worker of runners) {
      worker.register('test.work', {
        payload: z.object({ n: z.number() }),
        async run({ n }) {
          runs.push({ n, by: worker.owner });
          await sleep(2);
        },
      });
    }
    await first.transaction(async (trx) => {
      for (let n = 0; n < 200; n++) await jobs().enqueue(trx, 'test.work', { n });
    });
    await Promise.all(runners.map((worker) => worker.start()));
    try {
      await until(async () => {
        const done = await first.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('state', '=', 'done')
          .executeTakeFirstOrThrow();
        return Number(done.n) === 200;
      }, '200 jobs done');
    } finally {
      await Promise.all(runners.map((worker) => worker.stop()));
    }
    expect(runs.map((run) => run.n).sort((a, b) => a - b)).toEqual([...Array(200).keys()]);
    expect(runs.filter((run) => run.by === 'one').length).toBeGreaterThan(0);
    expect(runs.filter((run) => run.by === 'two').length).toBeGreaterThan(0);
    const attempts = await first.db.selectFrom('jobs').select('attempts').distinct().execute();
    expect(attempts).toEqual([{ attempts: 1 }]);
  });

  it('stops by waiting for running jobs, and hands back those that outlast the wait', async () => {
    const worker = runner(first, { stopTimeoutMs: 1000 });
    const seen: string[] = [];
    let finishQuick: () => void = () => undefined;
    const quickMayFinish = new Promise<void>((resolve) => (finishQuick = resolve));
    worker.register('test.quick', {
      payload: z.null(),
      async run() {
        await quickMayFinish;
        seen.push('quick finished');
      },
    });
    worker.register('test.slow', {
      payload: z.null(),
      run: (_payload, { signal }) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            seen.push('slow aborted');
            resolve();
          });
        }),
    });
    const quick = await jobs().enqueue(first.db, 'test.quick', null);
    const slow = await jobs().enqueue(first.db, 'test.slow', null);
    await worker.start();
    await until(async () => (await row(slow))?.state === 'running' && (await row(quick))?.state === 'running', 'both running');
    setTimeout(finishQuick, 50); // while the stop waits
    await worker.stop();
    expect(seen).toEqual(['quick finished', 'slow aborted']);
    expect(await row(quick)).toMatchObject({ state: 'done' });
    expect(await row(slow)).toMatchObject({ state: 'pending', attempts: 0, lease_owner: null, lease_until: null });
    // a stopped runner claims nothing more
    await jobs().enqueue(first.db, 'test.quick', null);
    await sleep(100);
    expect((await jobs().list({ pageNum: 1, numberOfItems: 10, state: 'pending' })).totalNumOfItems).toBe(2);
  });
});

describeEachDatabase('background jobs in the server', (ctx) => {
  const database = () => ctx().app.services.database;
  const storage = () => ctx().app.services.storage;
  /** The server's job kinds and schedules, on the test app's database and storage. */
  const module = () => jobsModule(ctx().app.services, quiet);

  describe('GET /ui/admin/jobs', () => {
    it('needs a session (401) and the ADMIN role (403)', async () => {
      expect((await ctx().call('GET', '/ui/admin/jobs')).statusCode).toBe(401);
      const user = await ctx().createUser();
      const response = await ctx().call('GET', '/ui/admin/jobs', { token: user.token });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ errorToken: 'actionNotAllowed' });
    });

    it('pages jobs newest first and shows the failed ones with their last error', async () => {
      const worker = runner(database());
      worker.register('test.broken', {
        payload: z.object({ order: z.string() }),
        run: async () => {
          throw new Error('peer unreachable');
        },
      });
      const jobs = new JobsService(database());
      const failing = await jobs.enqueue(database().db, 'test.broken', { order: 'A-1' }, { maxAttempts: 1 });
      const waiting = await jobs.enqueue(database().db, 'test.later', { order: 'A-2' });
      await worker.runDue();
      const token = await ctx().adminToken();

      const failed = await ctx().call('GET', '/ui/admin/jobs?state=failed', { token });
      expect(failed.statusCode).toBe(200);
      const failedPage = failed.json<TPage<TJob>>();
      expect(failedPage.data.map((job) => job.id)).toContain(failing);
      expect(failedPage.data.find((job) => job.id === failing)).toMatchObject({
        kind: 'test.broken',
        state: 'failed',
        payload: { order: 'A-1' },
        attempts: 1,
        maxAttempts: 1,
        lastError: 'peer unreachable',
      });
      expect(failedPage.data.every((job) => job.state === 'failed')).toBe(true);

      const all = await ctx().call('GET', '/ui/admin/jobs?numberOfItems=1', { token });
      expect(all.json()).toMatchObject({ pageNum: 1, numberOfItems: 1, data: [{ id: waiting, state: 'pending' }] });
      expect(all.json<TPage<TJob>>().totalNumOfItems).toBeGreaterThanOrEqual(2);

      expect((await ctx().call('GET', '/ui/admin/jobs?state=sleeping', { token })).statusCode).toBe(400);
    });
  });

  it('purges sessions that ended more than a day ago, on its schedule', async () => {
    const { db } = database();
    const admin = await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
    const ago = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();
    const session = (id: string, expiresAt: string, revokedAt: string | null) => ({
      id: `purge-${id}`,
      user_id: admin.id,
      created_at: ago(100),
      expires_at: expiresAt,
      revoked_at: revokedAt,
      escalated: 0,
      source_ip: null,
      user_agent: null,
    });
    await db
      .insertInto('sessions')
      .values([
        session('expired-long-ago', ago(48), null),
        session('revoked-long-ago', ago(-5), ago(30)),
        session('expired-recently', ago(2), null),
        session('revoked-recently', ago(-5), ago(1)),
        session('live', ago(-5), null),
      ])
      .execute();

    const jobs = module();
    await jobs.runner.runDue();
    const purge = await db.selectFrom('jobs').selectAll().where('kind', '=', SESSION_PURGE).executeTakeFirstOrThrow();
    expect(purge).toMatchObject({ state: 'done', dedupe_key: expect.stringMatching(/^every:sessions\.purge:/) });
    const left = await db.selectFrom('sessions').select('id').where('id', 'like', 'purge-%').orderBy('id').execute();
    expect(left.map((row) => row.id)).toEqual(['purge-expired-recently', 'purge-live', 'purge-revoked-recently']);
  });

  it('purges the STP nonces spent more than twice the timestamp window ago, every machine at once', async () => {
    const { db } = database();
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const machines = [randomUUID(), randomUUID()];
    await db
      .insertInto('stp_nonces')
      .values([
        { device_id: machines[0]!, nonce: 'old-a', created_at: minutesAgo(11) },
        { device_id: machines[1]!, nonce: 'old-b', created_at: minutesAgo(60) },
        { device_id: machines[0]!, nonce: 'recent-a', created_at: minutesAgo(9) },
        { device_id: machines[1]!, nonce: 'recent-b', created_at: minutesAgo(0) },
      ])
      .execute();
    // this period's run, if an earlier test's runner already made it, is made again
    await db.deleteFrom('jobs').where('kind', '=', STP_NONCE_PURGE).execute();

    const jobs = module();
    await jobs.runner.runDue();
    const purge = await db.selectFrom('jobs').selectAll().where('kind', '=', STP_NONCE_PURGE).executeTakeFirstOrThrow();
    expect(purge).toMatchObject({ state: 'done', dedupe_key: expect.stringMatching(/^every:stp\.nonces\.purge:/) });
    const left = await db.selectFrom('stp_nonces').select('nonce').where('device_id', 'in', machines).orderBy('nonce').execute();
    expect(left.map((row) => row.nonce)).toEqual(['recent-a', 'recent-b']);
  });

  it('sweeps abandoned uploads and unreferenced objects older than the grace period, nothing else', async () => {
    const root = path.join(ctx().config.dataDir, 'storage');
    const objectPath = (key: string) => path.join(root, key.slice(0, 2), key);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    const age = (file: string) => fs.utimes(file, twoHoursAgo, twoHoursAgo);
    const exists = (file: string) =>
      fs.access(file).then(
        () => true,
        () => false,
      );

    const orphan = await storage().put(Readable.from([randomBytes(100)]));
    await age(objectPath(orphan.key));
    const youngOrphan = await storage().put(Readable.from([randomBytes(100)]));
    const referenced = await storage().put(Readable.from([randomBytes(100)]));
    await age(objectPath(referenced.key));
    await database()
      .db.insertInto('storage_files')
      .values({
        id: randomUUID(),
        type_name: 'dsi',
        filename: `${randomBytes(16).toString('hex')}.dsi`,
        size: referenced.size,
        sha256: referenced.sha256,
        storage_key: referenced.key,
        created_by: 'admin',
        created_at: twoHoursAgo.toISOString(),
      })
      .execute();

    const abandoned = path.join(root, 'tmp', `${randomBytes(16).toString('hex')}.part`);
    await fs.writeFile(abandoned, randomBytes(10));
    await age(abandoned);
    const otherProcessUpload = path.join(root, 'tmp', `${randomBytes(16).toString('hex')}.part`);
    await fs.writeFile(otherProcessUpload, randomBytes(10));
    const before = new Set(await fs.readdir(path.join(root, 'tmp')));
    const live = new PassThrough();
    live.write(randomBytes(10));
    const livePut = storage().put(live);
    let liveUpload: string | undefined;
    await until(async () => {
      liveUpload = (await fs.readdir(path.join(root, 'tmp'))).find((name) => !before.has(name));
      return liveUpload !== undefined;
    }, 'the live upload temporary file');
    await age(path.join(root, 'tmp', liveUpload!));

    const jobs = module();
    await jobs.services.jobs.enqueue(database().db, STORAGE_SWEEP, null);
    await jobs.runner.runDue();

    expect(await exists(objectPath(orphan.key))).toBe(false);
    expect(await exists(abandoned)).toBe(false);
    expect(await exists(objectPath(youngOrphan.key))).toBe(true);
    expect(await exists(objectPath(referenced.key))).toBe(true);
    expect(await exists(otherProcessUpload)).toBe(true);
    expect(await exists(path.join(root, 'tmp', liveUpload!))).toBe(true);
    live.end(randomBytes(10));
    const stored = await livePut;
    expect(stored.size).toBe(20);
    expect(await exists(objectPath(stored.key))).toBe(true);
    await fs.rm(otherProcessUpload);
  });

  it('leaves a stalled upload\u2019s temporary file while the upload may still live, with the upload rate check off', async () => {
    const stalled = path.join(ctx().config.dataDir, 'storage', 'tmp', `${randomBytes(16).toString('hex')}.part`);
    await fs.writeFile(stalled, randomBytes(10));
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    await fs.utimes(stalled, tenMinutesAgo, tenMinutesAgo);
    const exists = () =>
      fs.access(stalled).then(
        () => true,
        () => false,
      );
    /** One sweep by a process with these settings (as another server process on the same storage). */
    const sweep = async (env: Record<string, string>) => {
      const services = ctx().app.services;
      const jobs = jobsModule({ ...services, config: { ...services.config, jobs: loadConfig(env).jobs } }, quiet);
      await jobs.services.jobs.enqueue(database().db, STORAGE_SWEEP, null);
      await jobs.runner.runDue();
    };

    // without the rate check an upload may stall until REQUEST_TIMEOUT_SECONDS (an hour) ends it
    await sweep({ UPLOAD_MIN_BYTES_PER_SECOND: '0' });
    expect(await exists()).toBe(true);
    // with it, an upload that wrote nothing for ten minutes was cut off long ago
    await sweep({});
    expect(await exists()).toBe(false);
  });

  it('sweeps the images nothing shows once older than the grace period, with their objects', async () => {
    const root = path.join(ctx().config.dataDir, 'storage');
    const objectPath = (key: string) => path.join(root, key.slice(0, 2), key);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    const exists = (file: string) =>
      fs.access(file).then(
        () => true,
        () => false,
      );
    const image = async (createdAt: Date) => {
      const stored = await storage().put(Readable.from([randomBytes(100)]));
      await fs.utimes(objectPath(stored.key), twoHoursAgo, twoHoursAgo);
      const name = `${randomBytes(16).toString('hex')}.png`;
      await database()
        .db.insertInto('images')
        .values({
          name,
          owner_kind: 'device',
          content_type: 'image/png',
          size: stored.size,
          sha256: stored.sha256,
          storage_key: stored.key,
          created_at: createdAt.toISOString(),
        })
        .execute();
      return { name, key: stored.key };
    };
    // left behind: the picture a machine had before a process died between replacing and removing it
    const leftBehind = await image(twoHoursAgo);
    // just written with its owner, whose transaction may not have committed yet
    const recent = await image(new Date());

    const jobs = module();
    await jobs.services.jobs.enqueue(database().db, STORAGE_SWEEP, null);
    await jobs.runner.runDue();

    const names = await database()
      .db.selectFrom('images')
      .select('name')
      .where('name', 'in', [leftBehind.name, recent.name])
      .execute();
    expect(names.map((row) => row.name)).toEqual([recent.name]);
    expect(await exists(objectPath(leftBehind.key))).toBe(false);
    expect(await exists(objectPath(recent.key))).toBe(true);
  });
});

describe('the job runner in a started server', () => {
  it('runs the sweep and the schedules at start, and stops on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-jobs-start-'));
    const server = await startServer({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: adminPassword,
      CONSOLE_DIR: path.join(dataDir, 'none'),
      JOBS_POLL_MS: '50',
    });
    try {
      const login = await fetch(`${server.url}/ui/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: adminPassword }),
      });
      const { sessionToken } = (await login.json()) as { sessionToken: string };
      let kinds: string[] = [];
      await until(async () => {
        const response = await fetch(`${server.url}/ui/admin/jobs?state=done&numberOfItems=50`, {
          headers: { authorization: `Bearer ${sessionToken}` },
        });
        kinds = ((await response.json()) as TPage<TJob>).data.map((job) => job.kind);
        return new Set(kinds).size === 5 && kinds.filter((kind) => kind === STORAGE_SWEEP).length >= 2;
      }, 'the jobs of the first start');
      // the sweep at start and the first period of each schedule
      expect([...new Set(kinds)].sort()).toEqual([
        JOB_HISTORY_PURGE,
        OUTBOX_PURGE,
        SESSION_PURGE,
        STORAGE_SWEEP,
        STP_NONCE_PURGE,
      ]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.output().stdout).toMatch(/job runner \S+ started/);
    expect(server.output().stdout).toMatch(/job runner \S+ stopped/);
    await fs.rm(dataDir, { recursive: true, force: true });
  }, 180_000);
});
