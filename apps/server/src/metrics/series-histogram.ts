import type { Metric, Registry } from 'prom-client';

/**
 * A Prometheus histogram for the request path: each series (one set of label values) is made
 * once and observed with a bucket search and three additions. prom-client's own `Histogram`, even
 * through `labels()`, checks the labels, builds their hash string and looks it up on every
 * observation. The exposition is the same as prom-client's (`_bucket` with `le`, `+Inf`, `_sum`,
 * `_count`), written by the registry like any of its metrics.
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    if (bounds.some((bound, i) => i > 0 && bound <= bounds[i - 1]!)) throw new Error(`${name}: buckets must increase`);
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series with these label values (keep it: each call makes another). */
  series(labels: Record<string, string | number>): HistogramSeries {
    const series = new HistogramSeries(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  /** The samples as the registry writes them: each series' labels after `le`, as prom-client's histogram does. */
  getForPromString() {
    const values: {
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string | number>;
      value: number;
      metricName: string;
    }[] = [];
    for (const series of this.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i += 1) {
        cumulative += series.counts[i]!;
        values.push({
          labels: { le: this.bounds[i]! },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      }
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The samples with all their labels together (the registry's JSON form). */
  get() {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...sharedLabels, ...labels },
        value,
        metricName,
      })),
    };
  }

  reset(): void {
    for (const series of this.all) series.clear();
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string | number>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i += 1;
    this.counts[i] = this.counts[i]! + 1;
    this.sum += value;
    this.count += 1;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}
