import type { TFunction } from 'i18next';
import { isApiError, type ApiProblem } from '../lib/api-errors';

/** A server problem in the reader's language: by token when translated, else as the server said it. */
export function problemMessage(t: TFunction, problem: ApiProblem): string {
  return t(`errorTokens.${problem.errorToken}`, { defaultValue: problem.errorDescription });
}

/** The message of any failure of an API call (spec §8), translated. */
export function apiErrorMessage(t: TFunction, error: unknown): string {
  if (!isApiError(error)) return t('apiErrors.server');
  if (error.kind === 'badRequest') {
    if (error.problems.length === 0) return t('apiErrors.server');
    return error.problems.map((problem) => problemMessage(t, problem)).join(' ');
  }
  return t(`apiErrors.${error.kind}`);
}

export interface FormErrors {
  fields: Record<string, string>;
  /** Problems that belong to no field of the form. */
  general: string[];
}

/**
 * Places each server problem next to its form field: the `field` the server names, else the
 * field its token is about; what fits no field is reported for the whole form.
 */
export function formErrorsFrom(
  t: TFunction,
  error: unknown,
  fieldNames: readonly string[],
  fieldOfToken: Readonly<Record<string, string>> = {},
): FormErrors {
  const result: FormErrors = { fields: {}, general: [] };
  if (!isApiError(error) || error.kind !== 'badRequest' || error.problems.length === 0) {
    result.general.push(apiErrorMessage(t, error));
    return result;
  }
  for (const problem of error.problems) {
    const message = problemMessage(t, problem);
    const candidate = problem.field ?? fieldOfToken[problem.errorToken];
    if (candidate && fieldNames.includes(candidate)) {
      const existing = result.fields[candidate];
      result.fields[candidate] = existing ? `${existing} ${message}` : message;
    } else {
      result.general.push(message);
    }
  }
  return result;
}
