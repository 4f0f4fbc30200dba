import { describe, expect, it } from 'vitest';
import { errorText, retryDelayMs, slotDedupeKey, slotStart } from './job-timing.js';

describe('retryDelayMs', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 };

  it('doubles with each failed attempt, the upper half of each delay random', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(3000);
  });

  it('never waits longer than the cap, however many attempts failed', () => {
    expect(retryDelayMs(7, policy, () => 1)).toBe(60_000);
    expect(retryDelayMs(500, policy, () => 1)).toBe(60_000);
    expect(retryDelayMs(500, policy, () => 0)).toBe(30_000);
  });
});

describe('slotStart', () => {
  it('answers the start of the period, the same in every process', () => {
    expect(slotStart(new Date('2026-03-01T10:59:59.999Z'), 3600).toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(slotStart(new Date('2026-03-01T11:00:00.000Z'), 3600).toISOString()).toBe('2026-03-01T11:00:00.000Z');
    expect(slotStart(new Date('2026-03-01T11:07:30.000Z'), 300).toISOString()).toBe('2026-03-01T11:05:00.000Z');
  });

  it('gives one dedupe key per kind and period', () => {
    const slot = new Date('2026-03-01T11:00:00.000Z');
    expect(slotDedupeKey('sessions.purge', slot)).toBe('every:sessions.purge:2026-03-01T11:00:00.000Z');
  });
});

describe('errorText', () => {
  it('keeps the message and the kind of a named error, cut to a bound', () => {
    expect(errorText(new Error('disk full'))).toBe('disk full');
    expect(errorText(new TypeError('x is undefined'))).toBe('TypeError: x is undefined');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(new Error('a'.repeat(50)), 10)).toBe(`${'a'.repeat(9)}…`);
  });
});
