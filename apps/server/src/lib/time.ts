/** ISO-8601 UTC with milliseconds: fixed width, so stored times sort as strings. */
export function isoNow(now: Date = new Date()): string {
  return now.toISOString();
}

export function isoAfterSeconds(seconds: number, from: Date = new Date()): string {
  return new Date(from.getTime() + seconds * 1000).toISOString();
}
