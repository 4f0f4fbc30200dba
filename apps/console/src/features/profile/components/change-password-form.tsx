import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { useChangePassword } from '../api/change-password';
import { ErrorAlert } from '../../../components/error-alert';

const fieldNames = ['currentPassword', 'password'] as const;
const fieldOfToken: Record<string, string> = {
  passwordIncorrect: 'currentPassword',
  currentPasswordRequired: 'currentPassword',
  passwordTooShort: 'password',
  userHasNoPassword: 'password',
};
const empty = { currentPassword: '', password: '', confirmation: '' };

export function ChangePasswordForm({ username }: { username: string }) {
  const { t } = useTranslation();
  const { values, setField, reset } = useFields(empty);
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
        {errors.general.length > 0 ? <ErrorAlert>{errors.general.join(' ')}</ErrorAlert> : null}
        <PasswordInput
          label={t('profile.currentPassword')}
          name="currentPassword"
          autoComplete="current-password"
          withAsterisk
          value={values.currentPassword}
          error={errors.fields.currentPassword}
          onChange={(event) => setField('currentPassword', event.currentTarget.value)}
        />
        <PasswordInput
          label={t('profile.newPassword')}
          name="password"
          autoComplete="new-password"
          withAsterisk
          value={values.password}
          error={errors.fields.password}
          onChange={(event) => setField('password', event.currentTarget.value)}
        />
        <PasswordInput
          label={t('profile.confirmPassword')}
          name="confirmation"
          autoComplete="new-password"
          withAsterisk
          value={values.confirmation}
          error={errors.fields.confirmation}
          onChange={(event) => setField('confirmation', event.currentTarget.value)}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={mutation.isPending}>
            {t('profile.changePassword')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
