import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesHistogram } from './series-histogram.js';

const bounds = [0.001, 0.01, 0.1, 1];

describe('SeriesHistogram', () => {
  it('writes exactly what prom-client’s histogram writes for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new SeriesHistogram('x_seconds', 'Some help', bounds, ours);
    const reference = new Histogram({
      name: 'x_seconds',
      help: 'Some help',
      labelNames: ['method', 'route'],
      buckets: bounds,
      registers: [theirs],
    });
    const observations: [Record<string, string>, number][] = [
      [{ method: 'GET', route: '/a' }, 0.0005],
      [{ method: 'GET', route: '/a' }, 0.001], // on a bound: counted in it
      [{ method: 'GET', route: '/a' }, 0.05],
      [{ method: 'POST', route: '/b "quoted"\\' }, 3], // above every bound: +Inf only
      [{ method: 'POST', route: '/b "quoted"\\' }, 0.2],
    ];
    const series = new Map<string, ReturnType<SeriesHistogram['series']>>();
    for (const [labels, value] of observations) {
      const key = JSON.stringify(labels);
      if (!series.has(key)) series.set(key, histogram.series(labels));
      series.get(key)!.observe(value);
      reference.observe(labels, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('x_seconds_bucket{le="0.001",method="GET",route="/a"} 2');
    const [referenceJson] = await theirs.getMetricsAsJSON();
    const withoutExemplars = {
      ...referenceJson,
      values: referenceJson!.values.map((sample) => {
        const { labels, value, metricName } = sample as typeof sample & { metricName: string };
        return { labels, value, metricName };
      }),
    };
    expect(await ours.getMetricsAsJSON()).toEqual([withoutExemplars]);
  });

  it('starts again from zero on reset, keeping its series, and refuses a value that is not a finite number', async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram('y_seconds', 'Help', bounds, registry);
    const series = histogram.series({ outcome: 'ok' });
    series.observe(0.5);
    histogram.reset();
    expect(await registry.metrics()).toContain('y_seconds_count{outcome="ok"} 0');
    expect(() => series.observe(Number.NaN)).toThrow(TypeError);
    expect(() => series.observe(Infinity)).toThrow(TypeError);
    expect(() => new SeriesHistogram('z', 'Help', [1, 1], registry)).toThrow('buckets must increase');
  });
});
