import { Textarea, TextInput, type TextareaProps, type TextInputProps } from '@mantine/core';
import type { FormErrors } from './api-error-message';
import { useTranslation } from 'react-i18next';
import { joinSentences } from '../lib/text-join';
import { ErrorAlert } from './error-alert';

/** What a form lends its fields: the values (from `useFields`), their setter and the server's errors. */
export interface BoundForm<T> {
  values: T;
  setField: <K extends keyof T>(key: K, value: T[K]) => void;
  errors: FormErrors;
}

/**
 * The height of an input's label (one line of the label's size): the top margin that sets a button or
 * checkbox in a row of labelled inputs level with them, however tall an input's error makes it (the
 * row aligned to the start, not the end).
 */
export const inputLabelHeight = 'calc(var(--mantine-font-size-sm) * var(--mantine-line-height))';

/** The fields of `T` that hold text. */
type TextKey<T> = { [K in keyof T]: T[K] extends string ? K : never }[keyof T] & string;

type Bound<T, P> = { form: BoundForm<T>; field: TextKey<T> } & Omit<P, 'name' | 'value' | 'onChange' | 'error' | 'form'>;

/** A text input bound to one text field of a form: name, value, setter and the field's error. */
export function FormTextInput<T>({ form, field, ...props }: Bound<T, TextInputProps>) {
  return (
    <TextInput
      {...props}
      name={field}
      value={form.values[field] as string}
      error={form.errors.fields[field]}
      onChange={(event) => form.setField(field, event.currentTarget.value as T[TextKey<T>])}
    />
  );
}

/** A multi-line text field bound like {@link FormTextInput}. */
export function FormTextarea<T>({ form, field, ...props }: Bound<T, TextareaProps>) {
  return (
    <Textarea
      {...props}
      name={field}
      value={form.values[field] as string}
      error={form.errors.fields[field]}
      onChange={(event) => form.setField(field, event.currentTarget.value as T[TextKey<T>])}
    />
  );
}

/**
 * The problems of a form's answer (or of a list's filters) that belong to none of its fields, one
 * after another as the reader's language joins sentences.
 */
export function FormGeneralErrors({ errors, testId }: { errors: Pick<FormErrors, 'general'>; testId?: string }) {
  const { t } = useTranslation();
  return errors.general.length > 0 ? <ErrorAlert data-testid={testId}>{joinSentences(t, errors.general)}</ErrorAlert> : null;
}
