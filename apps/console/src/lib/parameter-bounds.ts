/** The bounds of a parameter (quality or trace parameter) in words: `10 – 12 mm`, `≥ 10`, or nothing. */
export function boundsText(parameter: {
  low?: number | null | undefined;
  high?: number | null | undefined;
  units?: string | null | undefined;
}): string {
  const units = parameter.units ? ` ${parameter.units}` : '';
  const { low, high } = parameter;
  if (typeof low === 'number' && typeof high === 'number') return `${low} – ${high}${units}`;
  if (typeof low === 'number') return `≥ ${low}${units}`;
  if (typeof high === 'number') return `≤ ${high}${units}`;
  return '';
}
