import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error.js';
import { passRate, searchPlan } from './search-rules.js';

const tokenOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? [error.token, error.status] : error;
  }
  return undefined;
};

describe('quality search plan', () => {
  it('turns a day range into inspection-time bounds, the last day included', () => {
    expect(searchPlan({ sortBy: 'inspectedAt', from: '2026-01-01', to: '2026-01-31' }).window).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      until: '2026-02-01T00:00:00.000Z',
    });
  });

  it('answers 406 for an unknown sort and for more than 366 days', () => {
    expect(tokenOf(() => searchPlan({ sortBy: 'colour' }))).toEqual(['qualitySearchSortUnknown', 406]);
    expect(tokenOf(() => searchPlan({ sortBy: 'serialNumber', from: '2024-12-31', to: '2026-01-01' }))).toEqual([
      'qualitySearchRangeTooLarge',
      406,
    ]);
    expect(tokenOf(() => searchPlan({ sortBy: 'serialNumber', from: '2025-01-01', to: '2026-01-01' }))).toBeUndefined();
  });

  it('refuses a range that ends before it starts and a day that does not exist', () => {
    expect(tokenOf(() => searchPlan({ sortBy: 'inspectedAt', from: '2026-02-02', to: '2026-02-01' }))).toEqual([
      'malformedRequest',
      400,
    ]);
    expect(tokenOf(() => searchPlan({ sortBy: 'inspectedAt', from: '2026-02-30' }))).toEqual(['malformedRequest', 400]);
  });

  it('computes the pass rate, null with nothing inspected', () => {
    expect(passRate(2, 3)).toBe(0.6667);
    expect(passRate(0, 0)).toBeNull();
  });
});
