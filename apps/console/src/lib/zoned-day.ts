import { epochOfWallTime } from '../features/orders/components/expiry';

/**
 * The instant a calendar day (`YYYY-MM-DD`) begins in a time zone, as ISO-8601 UTC; `days` moves
 * the day first (1: the next day's start, the exclusive end of a range ending that day). Undefined
 * for text that is no date. An unknown time zone counts as UTC.
 */
export function zonedDayStart(day: string, timeZone: string | undefined, days = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const midnightUtc = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days);
  if (Number.isNaN(midnightUtc)) return undefined;
  const wallTime = `${new Date(midnightUtc).toISOString().slice(0, 10)}T00:00`;
  let instant: number | undefined;
  try {
    instant = epochOfWallTime(wallTime, timeZone ?? 'UTC');
  } catch {
    instant = epochOfWallTime(wallTime, 'UTC');
  }
  return instant === undefined ? undefined : new Date(instant).toISOString();
}

/** Whether `day` is a day of the calendar written `YYYY-MM-DD` (`2026-02-30` is not), as the server checks it. */
export function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const time = Date.parse(`${day}T00:00:00.000Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === day;
}
