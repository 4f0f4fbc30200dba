import { describe, expect, it } from 'vitest';
import { breakageAllowance, countedBreakage } from './job-effects.js';

describe('the breakage policy', () => {
  it('gives each policy its allowance over the order', () => {
    expect(breakageAllowance('Strict', null, 50)).toBe(0);
    expect(breakageAllowance('Percentage', 10, 50)).toBe(5);
    expect(breakageAllowance('Percentage', 15, 10)).toBe(1); // rounded down
    expect(breakageAllowance('Quantity', 3, 50)).toBe(3);
    expect(breakageAllowance('Trusted', null, 50)).toBe(Number.POSITIVE_INFINITY);
  });

  it('counts what the allowance left does not cover', () => {
    expect(countedBreakage(4, 0, 0)).toBe(4);
    expect(countedBreakage(4, 5, 3)).toBe(2);
    expect(countedBreakage(4, 5, 7)).toBe(4);
    expect(countedBreakage(4, Number.POSITIVE_INFINITY, 100)).toBe(0);
  });
});
