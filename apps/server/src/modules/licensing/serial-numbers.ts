/** A serial number as a machine sees it: `Dec` or `Hex` digits after the order's prefix. */
export function formatSerial(value: number, type: string | null, prefix: string | null): string {
  return `${prefix ?? ''}${type === 'Hex' ? value.toString(16).toUpperCase() : String(value)}`;
}

/** A bigint column as a number (PostgreSQL and MySQL drivers answer strings). */
export function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
