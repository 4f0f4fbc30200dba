import type { TFunction } from 'i18next';
import { isCalendarDay } from '../lib/zoned-day';
import { placeProblems } from './api-error-message';

/**
 * The day filters among `days` whose value is not a day of the calendar written `YYYY-MM-DD`
 * (`2026-02-30` is not), as the server checks it: a list does not send them.
 */
export function wrongDays<TName extends string>(
  values: Partial<Record<TName, string | undefined>>,
  days: readonly TName[],
): TName[] {
  return days.filter((name) => {
    const day = values[name];
    return day !== undefined && !isCalendarDay(day);
  });
}

export interface FilterErrors<TName extends string> {
  /** The message under each filter's input. */
  fields: Partial<Record<TName, string>>;
  /** What belongs to no filter, for the alert over the list. */
  general: string[];
}

/**
 * The messages of a list's filters: each of `wrongDays` (see `wrongDays`) on its input, and the
 * refusal of the list call (`error`) placed as a form's (`placeProblems`): a problem whose `field`
 * is one of the filter `names` (or a field of the call that `fieldOf` renames to one) under that
 * filter's input; the rest, or a failure that is no refusal, for the whole list.
 */
export function filterErrors<TName extends string>(
  t: TFunction,
  error: unknown,
  {
    names,
    wrongDays = [],
    fieldOf = {},
  }: { names: readonly TName[]; wrongDays?: readonly TName[]; fieldOf?: Readonly<Partial<Record<string, TName>>> },
): FilterErrors<TName> {
  const refusal = error
    ? placeProblems(t, error, (problem) => {
        if (problem.field === undefined) return undefined;
        const name: string = fieldOf[problem.field] ?? problem.field;
        return (names as readonly string[]).includes(name) ? name : undefined;
      })
    : { fields: {}, general: [] };
  const fields = { ...refusal.fields } as Partial<Record<TName, string>>;
  for (const name of wrongDays) fields[name] = t('common.notADay');
  return { fields, general: refusal.general };
}
