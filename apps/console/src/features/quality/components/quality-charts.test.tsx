import type { TQualityStatistics } from '@manifold/contract';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { noQualityStatistics } from '../../../test/quality';
import { renderWithProviders } from '../../../test/render';
import { QualityCharts } from './quality-charts';

const statistics: TQualityStatistics = {
  inspected: 4,
  passed: 3,
  failed: 1,
  passRate: 0.75,
  failuresByReason: [{ reason: '翘曲', failed: 1 }],
  byMachine: [{ key: 'm-1', label: '打印机 A', passed: 3, failed: 1 }],
  byDesign: [],
  bySupplier: [],
  overTime: [],
};

describe('the summaries of the quality charts', () => {
  it.each([
    ['en', 'By machine (failed of inspected): 打印机 A: 1/4', 'Failures by reason (failed of inspected): 翘曲: 1'],
    ['zh', '按设备（不合格/已检验）：打印机 A：1/4', '按原因统计的不合格（不合格/已检验）：翘曲：1'],
  ] as const)("name each group before its numbers with the language's colon (%s)", (locale, byMachine, byReason) => {
    renderWithProviders(<QualityCharts statistics={statistics} />, { locale });
    const summaries = screen.getAllByRole('img').map((image) => image.getAttribute('aria-label'));
    expect(summaries).toContain(byMachine);
    expect(summaries).toContain(byReason);
  });
});

describe('the quality charts with nothing to show', () => {
  const none = noQualityStatistics;

  it.each([
    ['en', false, 'No inspections yet.'],
    ['en', true, 'No inspections match the filters.'],
    ['zh', false, '暂无检验记录。'],
    ['zh', true, '没有符合筛选条件的检验记录。'],
  ] as const)('say so instead of drawing empty axes (%s, filtered: %s)', (locale, filtered, text) => {
    renderWithProviders(<QualityCharts statistics={none} filtered={filtered} />, { locale });
    const ids = ['quality-over-time', 'quality-reasons', 'quality-machines', 'quality-designs', 'quality-suppliers'];
    expect(ids.map((id) => screen.getByTestId(`${id}-empty`).textContent)).toEqual(ids.map(() => text));
    expect(screen.queryAllByRole('img')).toEqual([]);
    expect(screen.queryAllByRole('table')).toEqual([]);
  });

  it('draws the charts that have data and says so for the others', () => {
    renderWithProviders(<QualityCharts statistics={statistics} />, { locale: 'en' });
    expect(screen.getAllByRole('img')).toHaveLength(2);
    expect(screen.getByTestId('quality-designs-empty').textContent).toBe('No inspections yet.');
    expect(screen.queryByTestId('quality-machines-empty')).toBeNull();
  });
});
