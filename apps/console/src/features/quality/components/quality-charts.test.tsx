import type { TQualityStatistics } from '@manifold/contract';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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
