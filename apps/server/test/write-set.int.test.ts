import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { WriteSet } from '../src/db/write-set.js';
import { describeEachDatabase } from './helpers/test-app.js';

// db/write-set.ts: a transaction's writes gathered and sent at once (PostgreSQL: one statement of
// data-modifying parts reading JSON; SQLite and MariaDB: one after another). Checked on the rows
// stored, the refusal a write names for a taken key, and all-or-nothing in a transaction.
describeEachDatabase('write sets', (ctx) => {
  const database = () => ctx().app.services.database;
  const nonce = (device: string, value: string) => ({ device_id: device, nonce: value, created_at: '2026-11-24T10:00:00.000Z' });
  const replayed = () => new Error('replayed');

  it('inserts into several tables and updates a row, in one go, with every value as given', async () => {
    const { db, dialect } = database();
    const device = randomUUID();
    await db.insertInto('trace_chains').values({ device_id: device, length: 0, head_hash: null, updated_at: 'then' }).execute();

    await database().transaction(async (trx) => {
      const writes = new WriteSet(trx, dialect.kind);
      writes
        .insert('stp_nonces', ['device_id', 'nonce', 'created_at'], [nonce(device, 'n-1'), nonce(device, 'n-2')])
        .insert(
          'audit_events',
          ['event_type', 'actor', 'subject', 'details', 'source_ip', 'created_at'],
          [
            {
              event_type: 'machineIdle',
              actor: `device:${device}`,
              subject: device,
              details: '{"a":"it\'s \\"quoted\\""}',
              source_ip: null,
              created_at: 'now',
            },
            {
              event_type: 'machineOffline',
              actor: `device:${device}`,
              subject: device,
              details: null,
              source_ip: '::1',
              created_at: 'now',
            },
          ],
        )
        .update('trace_chains', 'device_id', ['length', 'head_hash', 'updated_at'], {
          device_id: device,
          length: 2,
          head_hash: 'ab'.repeat(32),
          updated_at: 'now',
        });
      await writes.flush();
      // flushed writes are gone: a second flush sends nothing
      await writes.flush();
    });

    expect(await db.selectFrom('stp_nonces').select('nonce').where('device_id', '=', device).orderBy('nonce').execute()).toEqual([
      { nonce: 'n-1' },
      { nonce: 'n-2' },
    ]);
    expect(
      await db
        .selectFrom('audit_events')
        .select(['event_type', 'details', 'source_ip'])
        .where('subject', '=', device)
        .orderBy('id')
        .execute(),
    ).toEqual([
      { event_type: 'machineIdle', details: '{"a":"it\'s \\"quoted\\""}', source_ip: null },
      { event_type: 'machineOffline', details: null, source_ip: '::1' },
    ]);
    expect(await db.selectFrom('trace_chains').selectAll().where('device_id', '=', device).executeTakeFirst()).toEqual({
      device_id: device,
      length: 2,
      head_hash: 'ab'.repeat(32),
      updated_at: 'now',
    });
  });

  it("answers a write's own refusal for a taken key, and leaves nothing of the other writes", async () => {
    const { db, dialect } = database();
    const device = randomUUID();
    await db.insertInto('stp_nonces').values(nonce(device, 'spent')).execute();

    const attempt = database().transaction(async (trx) => {
      const writes = new WriteSet(trx, dialect.kind);
      writes
        .insert(
          'audit_events',
          ['event_type', 'actor', 'subject', 'details', 'source_ip', 'created_at'],
          [{ event_type: 'machineIdle', actor: null, subject: device, details: null, source_ip: null, created_at: 'now' }],
        )
        .insert('stp_nonces', ['device_id', 'nonce', 'created_at'], [nonce(device, 'fresh'), nonce(device, 'spent')], {
          duplicate: replayed,
        });
      await writes.flush();
    });
    await expect(attempt).rejects.toThrow('replayed');
    expect(await db.selectFrom('audit_events').select('id').where('subject', '=', device).execute()).toEqual([]);
    expect(await db.selectFrom('stp_nonces').select('nonce').where('device_id', '=', device).execute()).toEqual([
      { nonce: 'spent' },
    ]);
  });

  it('lets a taken key of a write without a refusal through as the driver reported it', async () => {
    const { db, dialect } = database();
    const device = randomUUID();
    await db.insertInto('stp_nonces').values(nonce(device, 'spent')).execute();
    const attempt = database().transaction(async (trx) => {
      await new WriteSet(trx, dialect.kind)
        .insert('stp_nonces', ['device_id', 'nonce', 'created_at'], [nonce(device, 'spent')])
        .flush();
    });
    await expect(attempt).rejects.toSatisfy((error: unknown) => error instanceof Error && error.message !== 'replayed');
  });
});
