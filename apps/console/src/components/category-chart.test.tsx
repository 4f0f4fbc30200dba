import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderWithProviders } from '../test/render';
import { CategoryChart, colorVariable, fitLabel, labelInterval, valueTicks } from './category-chart';

describe('the value axis of a chart', () => {
  it.each([
    [0, true, [0, 1, 2, 3, 4]],
    [1, true, [0, 1, 2, 3, 4]],
    [4, true, [0, 1, 2, 3, 4]],
    [5, true, [0, 2, 4, 6, 8]],
    [14, true, [0, 5, 10, 15, 20]],
    [150, true, [0, 50, 100, 150, 200]],
    [0.9, false, [0, 0.25, 0.5, 0.75, 1]],
    [37, false, [0, 10, 20, 30, 40]],
  ])('marks 0 to a round top above %s in four steps (whole numbers: %s)', (largest, integers, ticks) => {
    expect(valueTicks(largest, { integers })).toEqual(ticks);
  });

  it('ends at the given top (a rate of 100 %)', () => {
    expect(valueTicks(37, { max: 100 })).toEqual([0, 25, 50, 75, 100]);
  });
});

describe('the category labels of a chart', () => {
  it('shows every label with room, fewer when they would overlap', () => {
    expect(labelInterval(60, 5)).toBe(1);
    expect(labelInterval(20, 5)).toBe(3);
  });

  it('shortens a long label to its room before leaving labels out', () => {
    // five suppliers of 21 characters under 460 pixels: every one shown, each shortened
    expect(labelInterval(92, 21)).toBe(1);
    expect(fitLabel('E2E Supplier mx3xwqmi', 92)).toBe('E2E Supplie…');
    expect(fitLabel('warped', 92)).toBe('warped');
    expect(fitLabel('E2E Supplier mx3xwqmi', 10)).toBe('E2…');
  });
});

describe('a chart drawn', () => {
  const width = 412;
  const original = window.ResizeObserver;
  beforeEach(() => {
    // the container's width, as a browser's ResizeObserver reports it
    class SizedObserver {
      constructor(private readonly report: ResizeObserverCallback) {}
      observe(target: Element) {
        this.report([{ target, contentRect: { width, height: 200 } } as unknown as ResizeObserverEntry], this as never);
      }
      unobserve() {}
      disconnect() {}
    }
    window.ResizeObserver = SizedObserver;
  });
  afterEach(() => {
    window.ResizeObserver = original;
  });

  const days = [
    { day: '11-29', made: 3, passed: 2, failed: 1 },
    { day: '11-30', made: 0, passed: 0, failed: 0 },
  ];
  const series = [
    { name: 'made', label: 'Made', color: 'blue.8' },
    { name: 'passed', label: 'Passed', color: 'teal.7' },
    { name: 'failed', label: 'Failed', color: 'red.8' },
  ];

  it('draws a bar per series and category with its colour, the legend and a label per category', async () => {
    const { container } = renderWithProviders(
      <CategoryChart kind="bars" h={200} data={days} dataKey="day" series={series} integers withLegend />,
      { locale: 'en' },
    );
    await waitFor(() => expect(container.querySelector('svg')).not.toBeNull());
    expect(container.querySelector('svg')?.getAttribute('width')).toBe(String(width));
    const bars = [...container.querySelectorAll('[data-chart-category="11-29"] rect')];
    expect(bars.map((bar) => bar.getAttribute('fill'))).toEqual(series.map((one) => colorVariable(one.color)));
    // made 3 is three times as high as failed 1; a zero is no height
    const heights = bars.map((bar) => Number(bar.getAttribute('height')));
    expect(heights[0]).toBeCloseTo(3 * heights[2]!, 5);
    expect(
      [...container.querySelectorAll('[data-chart-category="11-30"] rect')].map((bar) => Number(bar.getAttribute('height'))),
    ).toEqual([0, 0, 0]);
    // the label as drawn, then its whole text as its tooltip
    expect(
      [...container.querySelectorAll('[data-chart-label]')].map((label) => [
        label.firstChild?.textContent,
        label.querySelector('title')?.textContent,
      ]),
    ).toEqual([
      ['11-29', '11-29'],
      ['11-30', '11-30'],
    ]);
    expect(container.querySelector('[data-chart-legend]')?.textContent).toBe('MadePassedFailed');
  });

  it('stacks the series of a category, the first at the bottom', async () => {
    const { container } = renderWithProviders(
      <CategoryChart kind="stacked" h={200} data={days} dataKey="day" series={series.slice(1)} integers />,
      { locale: 'en' },
    );
    await waitFor(() => expect(container.querySelector('svg')).not.toBeNull());
    const [passed, failed] = [...container.querySelectorAll('[data-chart-category="11-29"] rect')];
    expect(Number(failed?.getAttribute('y')) + Number(failed?.getAttribute('height'))).toBeCloseTo(
      Number(passed?.getAttribute('y')),
      5,
    );
  });

  it("shows a category's values on hovering it", async () => {
    const { container } = renderWithProviders(
      <CategoryChart
        kind="line"
        h={200}
        data={[{ day: '11-30', rate: 50 }]}
        dataKey="day"
        unit=" %"
        max={100}
        series={[{ name: 'rate', label: 'Pass rate', color: 'blue.8' }]}
      />,
      { locale: 'en' },
    );
    await waitFor(() => expect(container.querySelector('svg')).not.toBeNull());
    const svg = container.querySelector('svg')!;
    svg.getBoundingClientRect = () => ({
      left: 0,
      top: 0,
      right: width,
      bottom: 200,
      width,
      height: 200,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
    expect(screen.queryByText('Pass rate: 50 %')).toBeNull();
    fireEvent.mouseMove(svg, { clientX: width - 20, clientY: 100 });
    expect(container.querySelector('[data-chart-tooltip]')?.textContent).toBe('11-30Pass rate: 50 %');
    fireEvent.mouseLeave(svg);
    expect(container.querySelector('[data-chart-tooltip]')).toBeNull();
    expect([...container.querySelectorAll('text')].map((text) => text.textContent).slice(0, 5)).toEqual([
      '0 %',
      '25 %',
      '50 %',
      '75 %',
      '100 %',
    ]);
  });

  it('is drawn in the render that first shows it, at the width its container has then', () => {
    // an observer that never reports: the width read before the first paint is enough
    window.ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
    const measured = HTMLElement.prototype.getBoundingClientRect;
    HTMLElement.prototype.getBoundingClientRect = () => ({
      width: 300,
      height: 200,
      left: 0,
      top: 0,
      right: 300,
      bottom: 200,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
    try {
      const { container } = renderWithProviders(
        <CategoryChart kind="bars" h={200} data={days} dataKey="day" series={series} integers />,
        {
          locale: 'en',
        },
      );
      expect(container.querySelector('svg')?.getAttribute('width')).toBe('300');
    } finally {
      HTMLElement.prototype.getBoundingClientRect = measured;
    }
  });
});
