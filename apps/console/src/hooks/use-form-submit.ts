import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors, withoutFieldError } from '../components/api-error-message';

const noErrors: FormErrors = { fields: {}, general: [] };

/** What a form's submit hands its mutation (`mutate(variables, handlers)`). */
export interface SubmitHandlers<R> {
  onSuccess: (result: R) => void;
  onError: (error: unknown) => void;
}

/**
 * A form's submit and its errors: submitting clears them and calls `send` with the handlers for
 * its mutation, which run `onDone` with the answer or place the server's refusal on the form's
 * `fieldNames` (a problem's field, or the field `fieldOfToken` names for its token).
 * `clearFieldError` takes one field's message away (its input was changed).
 */
export function useFormSubmit<R>(
  fieldNames: readonly string[],
  fieldOfToken: Readonly<Record<string, string>>,
  onDone: (result: R) => void,
  send: (handlers: SubmitHandlers<R>) => void,
) {
  const { t } = useTranslation();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    send({ onSuccess: onDone, onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)) });
  };
  const clearFieldError = (field: string) => setErrors((current) => withoutFieldError(current, field));
  return { errors, submit, clearFieldError };
}
