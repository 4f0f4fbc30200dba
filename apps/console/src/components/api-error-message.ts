import type { TFunction } from 'i18next';
import { asApiFailure, isApiError, type ApiProblem } from '../lib/api-errors';
import { joinSentences } from '../lib/text-join';

/**
 * A server problem in the reader's language: by token and field when the token means something
 * particular on that field (`fieldErrors.<field>.<token>`: `passwordIncorrect` on `currentPassword`
 * is about that password alone, not a username), else by token when translated, else as the
 * server said it.
 */
export function problemMessage(t: TFunction, problem: ApiProblem): string {
  const onField = problem.field ? t(`fieldErrors.${problem.field}.${problem.errorToken}`, { defaultValue: '' }) : '';
  return onField || t(`errorTokens.${problem.errorToken}`, { defaultValue: problem.errorDescription });
}

/**
 * The message of any failure of an API call (spec §8), translated; input the console refused to
 * send is said as the server's 400 for it (see `asApiFailure`). Each distinct message is said once.
 */
export function apiErrorMessage(t: TFunction, failure: unknown): string {
  const error = asApiFailure(failure);
  if (!isApiError(error)) return t('apiErrors.server');
  if (error.kind === 'badRequest') {
    if (error.problems.length === 0) return t('apiErrors.server');
    // a fault of several properties (input the console refused to send) is said once, not once for each
    return joinSentences(t, [...new Set(error.problems.map((problem) => problemMessage(t, problem)))]);
  }
  // a refusal that says why (access controls, escalation) is shown as said, not as a bare 403
  const reasoned = error.problems.find((problem) => problem.errorToken !== 'actionNotAllowed');
  if (error.kind === 'forbidden' && reasoned) return problemMessage(t, reasoned);
  return t(`apiErrors.${error.kind}`);
}

/**
 * The failure of a call about one named thing (a file, an item) in the reader's language, the name
 * before the reason as each language joins them (`common.labelled`: "name: reason", in Chinese with
 * the full-width colon).
 */
export function namedErrorMessage(t: TFunction, name: string, error: unknown): string {
  return t('common.labelled', { label: name, text: apiErrorMessage(t, error) });
}

export interface FormErrors {
  fields: Record<string, string>;
  /** Problems that belong to no field of the form. */
  general: string[];
}

/**
 * `errors` without the message of `field`: its input was changed since, and the message was about
 * what it held then (a form's other messages stay until it is sent again).
 */
export function withoutFieldError(errors: FormErrors, field: string): FormErrors {
  if (!(field in errors.fields)) return errors;
  const { [field]: _changed, ...fields } = errors.fields;
  return { ...errors, fields };
}

/**
 * How a form names the fields of its call: for each field the server may name in a problem (the API's
 * property), the label the reader sees for it, in the reader's language. A field it has no label for
 * is left unnamed: the API's property names are never shown.
 */
export type FieldLabels = Readonly<Partial<Record<string, string>>> | ((field: string) => string | undefined);

/**
 * A server problem said for the whole form rather than under an input: its message, after the label
 * the form gives the field the server names (`common.labelled`: "Label: message", in Chinese with the
 * full-width colon) in place of any API name the server's words start with, or alone when the server
 * names none the form has a label for. Every form that shows server problems outside their inputs
 * names the field through this.
 */
export function labelledProblemMessage(t: TFunction, problem: ApiProblem, labels: FieldLabels = {}): string {
  const message = problemMessage(t, problem);
  if (problem.field === undefined) return message;
  const label = typeof labels === 'function' ? labels(problem.field) : labels[problem.field];
  if (!label) return message;
  // the server's own words (English) may start by naming the field: the label names it instead
  const named = [problem.field, label].find((name) => message.startsWith(`${name}: `));
  return t('common.labelled', { label, text: named === undefined ? message : message.slice(named.length + 2) });
}

/**
 * Places each server problem of a refused request on the form input `fieldOf` names; what fits
 * no input (or a failure that is not a refusal with problems) is reported for the whole form, named
 * by its field's label in `labels` (see `labelledProblemMessage`). Input the console refused to
 * send (a ZodError of an api wrapper's check) is placed as the server's 400 for it would be (see
 * `asApiFailure`).
 * Problems on the same input are joined; `distinct` leaves out a message the input already shows.
 */
export function placeProblems(
  t: TFunction,
  failure: unknown,
  fieldOf: (problem: ApiProblem) => string | undefined,
  { distinct = false, labels = {} }: { distinct?: boolean; labels?: FieldLabels } = {},
): FormErrors {
  const result: FormErrors = { fields: {}, general: [] };
  const error = asApiFailure(failure);
  if (!isApiError(error) || error.kind !== 'badRequest' || error.problems.length === 0) {
    result.general.push(apiErrorMessage(t, error));
    return result;
  }
  for (const problem of error.problems) {
    const key = fieldOf(problem);
    if (key === undefined) {
      result.general.push(labelledProblemMessage(t, problem, labels));
      continue;
    }
    const message = problemMessage(t, problem);
    const existing = result.fields[key];
    if (existing === undefined) result.fields[key] = message;
    else if (!distinct || !existing.includes(message)) result.fields[key] = `${existing} ${message}`;
  }
  return result;
}

/**
 * Places each server problem next to its form field: the `field` the server names, else the
 * field its token is about; what fits no field the form shows (`fieldNames`: its inputs on screen)
 * is reported for the whole form, named by the field's label in `labels`.
 */
export function formErrorsFrom(
  t: TFunction,
  error: unknown,
  fieldNames: readonly string[],
  fieldOfToken: Readonly<Record<string, string>> = {},
  labels: FieldLabels = {},
): FormErrors {
  return placeProblems(
    t,
    error,
    (problem) => {
      const candidate = problem.field ?? fieldOfToken[problem.errorToken];
      return candidate && fieldNames.includes(candidate) ? candidate : undefined;
    },
    { labels },
  );
}
