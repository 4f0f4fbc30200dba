import { describe, expect, it } from 'vitest';
import { isInspectable, qmsStateAfter } from './qms-state.js';

describe('part QMS state under inspection', () => {
  it('inspects parts its job made, and re-inspects inspected ones', () => {
    expect(isInspectable({ qms_state: 'MANUFACTURED', inspection_result: null })).toBe(true);
    expect(isInspectable({ qms_state: 'NO_QMS_STEP', inspection_result: null })).toBe(true);
    expect(isInspectable({ qms_state: 'FAILURE', inspection_result: 'failed' })).toBe(true);
  });

  it('refuses parts their job failed or cancelled', () => {
    expect(isInspectable({ qms_state: 'FAILURE', inspection_result: null })).toBe(false);
    expect(isInspectable({ qms_state: 'CANCELED', inspection_result: null })).toBe(false);
  });

  it('moves a passed part to MANUFACTURED and a failed one to FAILURE', () => {
    expect(qmsStateAfter('passed')).toBe('MANUFACTURED');
    expect(qmsStateAfter('failed')).toBe('FAILURE');
  });
});
