/**
 * The authorize form takes the expiry as a wall-clock time in the user's time zone (the
 * `datetime-local` input) and sends epoch milliseconds, as the authorize request wants.
 */
const wallTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

function partsIn(ms: number, timeZone: string): Record<string, number> {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return parts;
}

/** How far the zone's clock is ahead of UTC at that instant, in milliseconds. */
function zoneOffset(ms: number, timeZone: string): number {
  const p = partsIn(ms, timeZone);
  const asUtc = Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** `YYYY-MM-DDTHH:mm` of an instant in a time zone. */
export function wallTimeOf(ms: number, timeZone: string): string {
  const p = partsIn(ms, timeZone);
  const two = (value: number | undefined) => String(value ?? 0).padStart(2, '0');
  return `${String(p.year ?? 1970).padStart(4, '0')}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}`;
}

/** The instant (epoch ms) a wall-clock time names in a time zone; undefined when it is no time. */
export function epochOfWallTime(wallTime: string, timeZone: string): number | undefined {
  const match = wallTimePattern.exec(wallTime);
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  if (Number.isNaN(guess)) return undefined;
  const first = guess - zoneOffset(guess, timeZone);
  return guess - zoneOffset(first, timeZone);
}

/** The browser's zone, for users without one. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
