import { describe, expect, it } from 'vitest';
import { isCalendarDay, zonedDayStart } from './zoned-day';

describe('zonedDayStart', () => {
  it('is midnight of the day in the time zone, in UTC', () => {
    expect(zonedDayStart('2026-11-24', 'UTC')).toBe('2026-11-24T00:00:00.000Z');
    expect(zonedDayStart('2026-11-24', 'Asia/Tokyo')).toBe('2026-11-23T15:00:00.000Z');
    expect(zonedDayStart('2026-11-24', 'America/New_York')).toBe('2026-11-24T05:00:00.000Z');
    expect(zonedDayStart('2026-07-01', 'Europe/London')).toBe('2026-06-30T23:00:00.000Z');
  });

  it('moves by days (the exclusive end of a range) across a change of offset', () => {
    expect(zonedDayStart('2026-03-28', 'Europe/London', 1)).toBe('2026-03-29T00:00:00.000Z');
    expect(zonedDayStart('2026-03-29', 'Europe/London', 1)).toBe('2026-03-29T23:00:00.000Z');
    expect(zonedDayStart('2026-12-31', 'UTC', 1)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('answers nothing for text that is no date; an unknown zone counts as UTC', () => {
    expect(zonedDayStart('24.11.2026', 'UTC')).toBeUndefined();
    expect(zonedDayStart('', 'UTC')).toBeUndefined();
    expect(zonedDayStart('2026-11-24', 'Not/AZone')).toBe('2026-11-24T00:00:00.000Z');
    expect(zonedDayStart('2026-11-24', undefined)).toBe('2026-11-24T00:00:00.000Z');
  });
});

describe('isCalendarDay', () => {
  it('is a day the calendar has, written YYYY-MM-DD', () => {
    expect(isCalendarDay('2026-02-28')).toBe(true);
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2026-02-30')).toBe(false);
    expect(isCalendarDay('2026-02-29')).toBe(false);
    expect(isCalendarDay('2026-13-01')).toBe(false);
    expect(isCalendarDay('2026-2-3')).toBe(false);
    expect(isCalendarDay('24.11.2026')).toBe(false);
    expect(isCalendarDay('')).toBe(false);
  });
});
