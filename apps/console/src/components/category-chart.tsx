import { Box, Group, Paper, Text } from '@mantine/core';
import { useLayoutEffect, useRef, useState, type MouseEvent } from 'react';

/** One value of every category: its key in the data, its label, and its Mantine colour (`teal.7`). */
export interface ChartSeries {
  name: string;
  label: string;
  color: string;
}

export interface CategoryChartProps {
  /** Bars side by side, bars stacked (the first series at the bottom), or a line through the values. */
  kind: 'bars' | 'stacked' | 'line';
  /** Height in pixels; the width is the container's. */
  h: number;
  /** One row per category, in order: its label under `dataKey`, a number under each series' name. */
  data: readonly Record<string, string | number>[];
  dataKey: string;
  series: readonly ChartSeries[];
  /** Written after each value on the axis and in the tooltip (`' %'`). */
  unit?: string;
  /** The top of the value axis (100 for a rate); otherwise a round number above the largest value. */
  max?: number;
  /** Counts: the axis marks only whole numbers. */
  integers?: boolean;
  withLegend?: boolean;
}

/** `teal.7` as Mantine's CSS variable of that shade (it follows the colour scheme). */
export function colorVariable(color: string): string {
  return `var(--mantine-color-${color.replace('.', '-')})`;
}

/**
 * The marks of the value axis: from 0 to a round top at or above `largest` (`max` when given), in
 * four equal steps of 1, 2, 2.5 or 5 times a power of ten (whole numbers for counts). An axis of
 * nothing but zeros goes to 4.
 */
export function valueTicks(largest: number, { max, integers = false }: { max?: number; integers?: boolean } = {}): number[] {
  const steps = 4;
  if (max !== undefined) return Array.from({ length: steps + 1 }, (_, index) => (max / steps) * index);
  const raw = Math.max(largest, 0) / steps;
  let step = 1;
  if (raw > 0) {
    const power = 10 ** Math.floor(Math.log10(raw));
    const factors = integers && power < 10 ? [1, 2, 5, 10] : [1, 2, 2.5, 5, 10];
    step = (factors.find((factor) => factor * power >= raw) ?? 10) * power;
    if (integers) step = Math.max(1, Math.round(step));
  }
  return Array.from({ length: steps + 1 }, (_, index) => Number((step * index).toPrecision(12)));
}

/** Characters a label keeps at least before labels are left out rather than shortened further. */
const shortestLabel = 10;
/** About the width of a character of the axis' 12-pixel text. */
const charWidth = 7;

/**
 * Which category labels fit under the axis: every `interval`-th, counted back from the last. A long
 * label (a supplier's name) is shortened to its band first (`fitLabel`), down to ten characters;
 * only then are labels left out (days, where every other one is enough).
 */
export function labelInterval(band: number, longest: number): number {
  const needed = Math.min(longest, shortestLabel) * charWidth + 12;
  return Math.max(1, Math.ceil(needed / Math.max(band, 1)));
}

/** `label` within `room` pixels: whole, or cut with an ellipsis (its whole text is the tooltip's). */
export function fitLabel(label: string, room: number): string {
  const chars = Math.max(3, Math.floor((room - 8) / charWidth));
  return label.length <= chars ? label : `${label.slice(0, chars - 1)}…`;
}

/**
 * The width of the element `ref` is given to, read before the first paint (so a chart is drawn in
 * the frame its section first shows) and again whenever it changes.
 */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return undefined;
    setWidth(element.getBoundingClientRect().width);
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(entry.contentRect.width);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/** A series' colour as a dot (the legend's, the tooltip's). */
function Swatch({ color, size }: { color: string; size: number }) {
  return <Box w={size} h={size} style={{ borderRadius: '50%', background: colorVariable(color) }} />;
}

const font = 12;
const margin = { top: 8, right: 12, bottom: 24 };

function numberOf(row: Record<string, string | number>, name: string): number {
  const value = row[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * A chart of categories drawn as SVG by the console itself: the value axis with dashed lines at its
 * marks, a label under each category (as many as fit, the last always), bars (side by side or
 * stacked) or a line with a dot per value, an optional legend above, and on hovering a category a
 * tooltip with its values. It is an image: the section around it names it, and the table under it
 * holds the same numbers (`ChartSection`).
 */
export function CategoryChart({
  kind,
  h,
  data,
  dataKey,
  series,
  unit = '',
  max,
  integers = false,
  withLegend = false,
}: CategoryChartProps) {
  const { ref, width } = useWidth();
  const [hovered, setHovered] = useState<number | null>(null);

  const largest = Math.max(
    0,
    ...data.map((row) =>
      kind === 'stacked'
        ? series.reduce((sum, one) => sum + numberOf(row, one.name), 0)
        : Math.max(0, ...series.map((one) => numberOf(row, one.name))),
    ),
  );
  const ticks = valueTicks(largest, { ...(max === undefined ? {} : { max }), integers });
  const top = ticks.at(-1) ?? 1;
  const tickLabels = ticks.map((tick) => `${tick}${unit}`);
  const left = Math.max(...tickLabels.map((label) => label.length)) * charWidth + 14;
  const plotWidth = Math.max(width - left - margin.right, 0);
  const plotHeight = Math.max(h - margin.top - margin.bottom, 0);
  const band = data.length === 0 ? 0 : plotWidth / data.length;
  const y = (value: number) => margin.top + plotHeight - (Math.min(value, top) / top) * plotHeight;
  const center = (index: number) => left + band * index + band / 2;
  const labels = data.map((row) => String(row[dataKey] ?? ''));
  const interval = labelInterval(band, Math.max(0, ...labels.map((label) => label.length)));

  const onMove = (event: MouseEvent<SVGSVGElement>) => {
    const x = event.clientX - event.currentTarget.getBoundingClientRect().left - left;
    const index = Math.floor(x / Math.max(band, 1));
    setHovered(x >= 0 && index < data.length ? index : null);
  };

  const bars = (row: Record<string, string | number>, index: number) => {
    if (kind === 'stacked') {
      const barWidth = Math.min(band * 0.8, 56);
      let base = 0;
      return series.map((one) => {
        const value = numberOf(row, one.name);
        const rect = (
          <rect
            key={one.name}
            x={center(index) - barWidth / 2}
            y={y(base + value)}
            width={barWidth}
            height={y(base) - y(base + value)}
            fill={colorVariable(one.color)}
          />
        );
        base += value;
        return rect;
      });
    }
    const groupWidth = Math.min(band * 0.8, series.length * 32);
    const barWidth = groupWidth / series.length;
    return series.map((one, position) => {
      const value = numberOf(row, one.name);
      return (
        <rect
          key={one.name}
          x={center(index) - groupWidth / 2 + position * barWidth}
          y={y(value)}
          width={Math.max(barWidth - 1, 1)}
          height={y(0) - y(value)}
          fill={colorVariable(one.color)}
        />
      );
    });
  };

  const hoveredRow = hovered === null ? undefined : data[hovered];
  return (
    <Box>
      {withLegend ? (
        <Group gap="md" justify="flex-end" mb={4} data-chart-legend>
          {series.map((one) => (
            <Group key={one.name} gap={6} wrap="nowrap">
              <Swatch color={one.color} size={10} />
              <Text size="sm">{one.label}</Text>
            </Group>
          ))}
        </Group>
      ) : null}
      <Box ref={ref} pos="relative" h={h}>
        {width > 0 ? (
          <svg width={width} height={h} onMouseMove={onMove} onMouseLeave={() => setHovered(null)} data-chart-kind={kind}>
            {hovered !== null ? (
              <rect
                x={left + band * hovered}
                y={margin.top}
                width={band}
                height={plotHeight}
                fill="var(--mantine-color-default-hover)"
              />
            ) : null}
            {ticks.map((tick, index) => (
              <g key={tick}>
                <line
                  x1={left}
                  x2={left + plotWidth}
                  y1={y(tick)}
                  y2={y(tick)}
                  stroke="var(--mantine-color-default-border)"
                  strokeDasharray="5 5"
                />
                <text x={left - 8} y={y(tick)} dy="0.32em" textAnchor="end" fontSize={font} fill="var(--mantine-color-dimmed)">
                  {tickLabels[index]}
                </text>
              </g>
            ))}
            {labels.map((label, index) =>
              (data.length - 1 - index) % interval === 0 ? (
                <text
                  key={index}
                  x={center(index)}
                  y={h - 6}
                  textAnchor="middle"
                  fontSize={font}
                  fill="var(--mantine-color-dimmed)"
                  data-chart-label
                >
                  {fitLabel(label, band * interval)}
                  <title>{label}</title>
                </text>
              ) : null,
            )}
            {kind === 'line'
              ? series.map((one) => {
                  const points = data.map((row, index) => `${center(index)},${y(numberOf(row, one.name))}`);
                  return (
                    <g key={one.name} data-chart-series={one.name}>
                      {points.length > 1 ? (
                        <polyline points={points.join(' ')} fill="none" stroke={colorVariable(one.color)} strokeWidth={2} />
                      ) : null}
                      {data.map((row, index) => (
                        <circle
                          key={index}
                          cx={center(index)}
                          cy={y(numberOf(row, one.name))}
                          r={3}
                          fill={colorVariable(one.color)}
                        />
                      ))}
                    </g>
                  );
                })
              : data.map((row, index) => (
                  <g key={index} data-chart-category={labels[index]}>
                    {bars(row, index)}
                  </g>
                ))}
          </svg>
        ) : null}
        {hoveredRow && hovered !== null ? (
          <Paper
            withBorder
            shadow="sm"
            p="xs"
            pos="absolute"
            top={margin.top}
            style={{
              pointerEvents: 'none',
              whiteSpace: 'nowrap',
              ...(center(hovered) > width / 2
                ? { right: width - center(hovered) + band / 2 }
                : { left: center(hovered) + band / 2 }),
            }}
            data-chart-tooltip
          >
            <Text size="sm" fw={600}>
              {labels[hovered]}
            </Text>
            {series.map((one) => (
              <Group key={one.name} gap={6} wrap="nowrap">
                <Swatch color={one.color} size={8} />
                <Text size="sm">
                  {one.label}: {numberOf(hoveredRow, one.name)}
                  {unit}
                </Text>
              </Group>
            ))}
          </Paper>
        ) : null}
      </Box>
    </Box>
  );
}
