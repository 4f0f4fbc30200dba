import { afterAll, expect, it } from 'vitest';
import type { TCanonicalTraceEvent } from '@manifold/contract';
import { licensingWorld } from './helpers/licensing-fixtures.js';
import { startServer, type ServerProcess } from './helpers/server-process.js';
import { describeEachDatabase, serverProcessEnv } from './helpers/test-app.js';
import { MachineChain } from './helpers/trace-fixtures.js';

/**
 * A server process killed with SIGKILL while a machine streams events to it: every event it
 * acknowledged is stored after the restart, none twice, and the machine's chain goes on unbroken
 * once the machine re-sends what was in flight (docs/traceability.md: a 2xx only after the commit).
 */
describeEachDatabase('events survive kill -9 of the server', (ctx) => {
  const servers: ServerProcess[] = [];

  afterAll(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    }
  });

  it('keeps every acknowledged event exactly once across a SIGKILL and a restart', async () => {
    const world = await licensingWorld(ctx());
    const chain = new MachineChain(world);
    const { config } = ctx();
    const env = serverProcessEnv(config);
    const send = async (url: string, event: TCanonicalTraceEvent) => {
      const response = await fetch(`${url}/stp/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(await chain.envelope(event)),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as { eventId: string; chainFinding: string | null };
    };

    const first = await startServer(env);
    servers.push(first);
    const acknowledged: string[] = [];
    const sent: TCanonicalTraceEvent[] = [];
    let inFlight: TCanonicalTraceEvent | undefined;
    // the machine streams, one event at a time (each names the one before); once 40 are
    // acknowledged the server is killed a few milliseconds later, in the middle of some request
    const killAfter = 40;
    const streaming = (async () => {
      for (let index = 0; index < 10_000; index += 1) {
        const event = chain.next(index % 2 ? 'machineIdle' : 'machineOffline', { data: { n: String(index) } });
        sent.push(event);
        inFlight = event;
        try {
          await send(first.url, event);
        } catch {
          return; // the connection died: this event is not acknowledged
        }
        acknowledged.push(event.eventId);
        inFlight = undefined;
        if (acknowledged.length === killAfter) setTimeout(() => first.child.kill('SIGKILL'), 3 + Math.random() * 10);
      }
    })();
    await streaming;
    await first.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);
    expect(first.child.signalCode).toBe('SIGKILL');

    // restarted, the machine re-sends what it has no answer for, then goes on
    const second = await startServer(env);
    servers.push(second);
    if (inFlight) expect((await send(second.url, inFlight)).eventId).toBe(inFlight.eventId);
    for (let index = 0; index < 5; index += 1) {
      const event = chain.next('machineIdle');
      sent.push(event);
      expect((await send(second.url, event)).chainFinding).toBeNull();
      acknowledged.push(event.eventId);
    }

    const rows = await ctx()
      .app.services.database.db.selectFrom('trace_events')
      .select(['event_id', 'sequence', 'chain_finding'])
      .where('device_id', '=', world.deviceId)
      .orderBy('sequence')
      .execute();
    const stored = rows.map((row) => row.event_id);
    for (const eventId of acknowledged) expect(stored).toContain(eventId);
    expect(new Set(stored).size).toBe(stored.length);
    // every event the machine sent is stored once, in its chain order, with no break
    expect(stored).toEqual(sent.map((event) => event.eventId));
    expect(rows.map((row) => row.sequence)).toEqual(rows.map((_, index) => index + 1));
    expect(rows.filter((row) => row.chain_finding !== null)).toEqual([]);
  });
});
