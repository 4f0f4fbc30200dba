import { describe, expect, it } from 'vitest';
import { boundsText } from './parameter-bounds';

describe('boundsText', () => {
  it('words both bounds, one bound, or none, with the units', () => {
    expect(boundsText({ low: 10, high: 12, units: 'mm' })).toBe('10 – 12 mm');
    expect(boundsText({ low: 0, high: null, units: null })).toBe('≥ 0');
    expect(boundsText({ high: 5 })).toBe('≤ 5');
    expect(boundsText({ low: null, high: null, units: 'mm' })).toBe('');
  });
});
