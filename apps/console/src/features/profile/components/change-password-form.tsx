import { Button, Group, Stack } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { useChangePassword } from '../api/change-password';
import { FormGeneralErrors } from '../../../components/form-fields';
import { PasswordInput } from '../../../components/password-input';

const fieldNames = ['currentPassword', 'password'] as const;
const fieldOfToken: Record<string, string> = {
  passwordIncorrect: 'currentPassword',
  currentPasswordRequired: 'currentPassword',
  passwordTooShort: 'password',
  userHasNoPassword: 'password',
};
const empty = { currentPassword: '', password: '', confirmation: '' };
const passwordInputs = [
  { name: 'currentPassword', label: 'profile.currentPassword', autoComplete: 'current-password' },
  { name: 'password', label: 'profile.newPassword', autoComplete: 'new-password' },
  { name: 'confirmation', label: 'profile.confirmPassword', autoComplete: 'new-password' },
] as const;

export function ChangePasswordForm({ username }: { username: string }) {
  const { t } = useTranslation();
  const { values, setField, reset } = useFields(empty, (field) => setErrors((current) => withoutFieldError(current, field)));
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const mutation = useChangePassword();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (values.password !== values.confirmation) {
      setErrors({ fields: { confirmation: t('profile.passwordMismatch') }, general: [] });
      return;
    }
    setErrors({ fields: {}, general: [] });
    mutation.mutate(
      { username, currentPassword: values.currentPassword, password: values.password },
      {
        onSuccess: () => {
          reset(empty);
          alerts.success(t('profile.passwordChanged'));
        },
        onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="profile-password-heading">
      <Stack maw={420}>
        <FormGeneralErrors errors={errors} />
        {passwordInputs.map(({ name, label, autoComplete }) => (
          <PasswordInput
            key={name}
            label={t(label)}
            name={name}
            autoComplete={autoComplete}
            withAsterisk
            value={values[name]}
            error={errors.fields[name]}
            aria-invalid={Boolean(errors.fields[name])}
            onChange={(event) => setField(name, event.currentTarget.value)}
          />
        ))}
        <Group justify="flex-end">
          <Button type="submit" loading={mutation.isPending}>
            {t('profile.changePassword')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
