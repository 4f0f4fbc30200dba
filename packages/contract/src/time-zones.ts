/**
 * IANA time zones known to the runtime (Node's ICU and every current browser carry the list).
 * `UTC` is always accepted although some runtimes list it only as an alias.
 */
let cached: ReadonlySet<string> | undefined;

export function knownTimeZones(): ReadonlySet<string> {
  if (!cached) {
    cached = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  }
  return cached;
}

export function isKnownTimeZone(zone: string): boolean {
  return knownTimeZones().has(zone);
}
