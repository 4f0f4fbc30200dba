import { knownTimeZones } from '@manifold/contract';

export interface TimeZoneOption {
  value: string;
  label: string;
}

export interface TimeZoneGroup {
  group: string;
  items: TimeZoneOption[];
}

/** 'GMT+09:00', 'GMT-03:30' or 'GMT+00:00' for the zone at the given date. */
export function timeZoneOffset(zone: string, date: Date = new Date()): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(date)
    .find((candidate) => candidate.type === 'timeZoneName');
  const value = part?.value ?? 'GMT';
  return value === 'GMT' ? 'GMT+00:00' : value;
}

function offsetMinutes(offset: string): number {
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

export function timeZoneRegion(zone: string): string {
  const slash = zone.indexOf('/');
  return slash === -1 ? 'Etc' : zone.slice(0, slash);
}

/** Zones grouped by GMT offset and region (spec §3), west to east. */
export function groupTimeZones(zones: Iterable<string>, date: Date = new Date()): TimeZoneGroup[] {
  const groups = new Map<string, { minutes: number; region: string; items: TimeZoneOption[] }>();
  for (const zone of zones) {
    const offset = timeZoneOffset(zone, date);
    const region = timeZoneRegion(zone);
    const key = `${offset} · ${region}`;
    let group = groups.get(key);
    if (!group) {
      group = { minutes: offsetMinutes(offset), region, items: [] };
      groups.set(key, group);
    }
    group.items.push({ value: zone, label: zone.replaceAll('_', ' ') });
  }
  return [...groups.entries()]
    .sort(([, a], [, b]) => a.minutes - b.minutes || a.region.localeCompare(b.region))
    .map(([group, entry]) => ({
      group,
      items: entry.items.sort((a, b) => a.value.localeCompare(b.value)),
    }));
}

let cached: TimeZoneGroup[] | undefined;

export function timeZoneGroups(): TimeZoneGroup[] {
  cached ??= groupTimeZones(knownTimeZones());
  return cached;
}
