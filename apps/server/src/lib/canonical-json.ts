/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every level, no whitespace,
 * `undefined` members left out. The same value always gives the same bytes, so its digest and
 * signature can be checked by anyone who rebuilds it.
 */
export function canonicalize<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => canonicalize(item)) as T;
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) sorted[key] = canonicalize(member);
    }
    return sorted as T;
  }
  return value;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value));
}

/**
 * How deeply a value from outside may nest (a JSON body, an uploaded event file, a signed
 * payload's claims, an XML event's elements): the deepest a client needs is about ten, and no
 * recursive walk (this file's {@link canonicalize} among them) runs out of stack this shallow.
 */
export const MAX_NESTING = 32;

/**
 * Whether a JSON value nests arrays and objects more than `limit` levels deep, walked without
 * recursion: {@link canonicalize} (and every other recursive walk) is only given values that pass.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    for (const member of Object.values(item)) pending.push([member, depth + 1]);
  }
  return false;
}
