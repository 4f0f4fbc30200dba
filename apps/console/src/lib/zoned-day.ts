/** The offset of a time zone from UTC at an instant, in milliseconds (east positive). */
function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value ?? 0);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

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
  let zone = timeZone ?? 'UTC';
  try {
    offsetAt(midnightUtc, zone);
  } catch {
    zone = 'UTC';
  }
  // two rounds: the offset at the guess, then at the corrected instant (a change of offset that night)
  let instant = midnightUtc - offsetAt(midnightUtc, zone);
  instant = midnightUtc - offsetAt(instant, zone);
  return new Date(instant).toISOString();
}
