import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorDescriptions } from '@manifold/contract';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { MetricsConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { MetricsRepository, type QueueFigures } from './metrics.repository.js';
import { type HistogramSeries, SeriesHistogram } from './series-histogram.js';
import { routeHooks } from '../plugins/request-steps.js';
import { uploadBytesReceived } from '../lib/multipart-parts.js';

const secondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function ageSeconds(iso: string | null): number {
  return iso ? Math.max(0, (Date.now() - Date.parse(iso)) / 1000) : 0;
}

/**
 * The figures `GET /metrics` exposes in the Prometheus text format (docs/operations.md lists
 * them with the queries an operator charts). Request figures are counted on the request path;
 * database pool, outbox and job figures are read when the endpoint is scraped.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requestDuration = new SeriesHistogram(
    'manifold_http_request_duration_seconds',
    'Time from request to reply, by route (the route pattern, not the URL), method and status',
    secondsBuckets,
    this.registry,
  );
  private readonly uploadBytes = new Counter({
    name: 'manifold_upload_bytes_total',
    help: 'Bytes of multipart upload bodies received (with a Content-Length or chunked) by requests answered with a 2xx, by route',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly queryDuration = new SeriesHistogram(
    'manifold_db_query_duration_seconds',
    'Database query time as the driver reports it, by outcome',
    secondsBuckets,
    this.registry,
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'manifold_' });
  }

  private readonly queryOk = this.queryDuration.series({ outcome: 'ok' });
  private readonly queryFailed = this.queryDuration.series({ outcome: 'error' });

  /** The hook `createDatabase` calls after each query (Kysely's query log). */
  readonly observeQuery = (milliseconds: number, failed: boolean): void => {
    (failed ? this.queryFailed : this.queryOk).observe(milliseconds / 1000);
  };

  /** Figures read from the database at each scrape: pool, outbox, background jobs. */
  watchDatabase(database: Database): void {
    const repository = new MetricsRepository(database.db);
    const pool = new Gauge({
      name: 'manifold_db_pool_connections',
      help: 'Connections of the database pool by state (PostgreSQL; SQLite has one connection and no pool)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const stats = database.poolStats();
        if (!stats) return;
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    void pool;
    const queue = (name: string, help: string, read: () => Promise<QueueFigures>) => {
      let figures: Promise<QueueFigures> | undefined;
      // one read per scrape for the two gauges of a queue
      const current = () => (figures ??= read().finally(() => setImmediate(() => (figures = undefined))));
      new Gauge({
        name: `manifold_${name}`,
        help: `${help} by kind and state`,
        labelNames: ['kind', 'state'] as const,
        registers: [this.registry],
        async collect() {
          const { counts } = await current();
          this.reset();
          for (const row of counts) this.set({ kind: row.kind, state: row.state }, row.count);
        },
      });
      new Gauge({
        name: `manifold_${name}_oldest_waiting_seconds`,
        help: `Age of the oldest ${name === 'outbox' ? 'undelivered message' : 'due, unfinished job'} (0 when none)`,
        registers: [this.registry],
        async collect() {
          this.set(ageSeconds((await current()).oldestWaiting));
        },
      });
    };
    queue('outbox', 'Messages waiting to leave the instance', () => repository.outbox());
    queue('jobs', 'Background jobs not finished', () => repository.jobs());
  }

  /**
   * Times every reply and counts upload bytes: each route gets its own hook with its pattern and
   * its series by method and status kept at hand (nothing is worked out per request but the
   * status's series the first time); the not-found handler's replies go through `observeNotFound`.
   */
  watchRequests(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      route.onResponse = [...routeHooks(route.onResponse), this.routeObserver(route.url)];
    });
  }

  /**
   * For the not-found handler to call: times its reply (a request no route matched, or one a
   * route handed on to it, such as a file the console does not have) as route `unmatched`. Its
   * replies run no route's hooks.
   */
  readonly observeNotFound = (request: FastifyRequest, reply: FastifyReply): void => {
    reply.raw.once('close', () => this.unmatched(request, reply, noop));
  };

  private readonly unmatched = this.routeObserver('unmatched');

  private routeObserver(route: string): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
    const seriesOf = new Map<string, Map<number, HistogramSeries>>();
    return (request, reply, done) => {
      const status = reply.statusCode;
      let byStatus = seriesOf.get(request.method);
      if (!byStatus) seriesOf.set(request.method, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (!series)
        byStatus.set(status, (series = this.requestDuration.series({ method: request.method, route, status_code: status })));
      series.observe(reply.elapsedTime / 1000);
      if (status < 300 && status >= 200) {
        const received = uploadBytesReceived(request);
        if (received) this.uploadBytes.inc({ route }, received);
      }
      done();
    };
  }
}

function noop(): void {}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Exposes the figures as configured (docs/operations.md): `GET /metrics` on the public port for
 * a caller with `METRICS_TOKEN` as its bearer token (without the setting no caller has it: 401),
 * and/or on its own listener at `METRICS_HOST:METRICS_PORT` (loopback by default) without a
 * token. `metrics` is null when neither is configured: then nothing is collected.
 */
export async function exposeMetrics(app: FastifyInstance, metrics: ServerMetrics | null, config: MetricsConfig): Promise<void> {
  const token = config.token;
  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus figures, for the METRICS_TOKEN bearer (docs/operations.md)' } },
    async (request, reply) => {
      if (!metrics || !token || !tokenMatches(request.headers.authorization, token)) {
        return reply
          .status(401)
          .header('WWW-Authenticate', 'Bearer')
          .send({ errorToken: 'invalidSessionToken', errorDescription: errorDescriptions.invalidSessionToken });
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
  if (!metrics) return;
  if (config.port !== null) {
    const listener = http.createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404).end();
        return;
      }
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(config.port!, config.host, () => resolve());
    });
    app.addHook('onClose', async () => {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    });
  }
}
