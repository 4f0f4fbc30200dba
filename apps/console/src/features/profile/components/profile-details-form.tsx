import { Button, Group, SimpleGrid, Stack, TextInput } from '@mantine/core';
import type { TUserProfile } from '@manifold/contract';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FieldLabels, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import {
  CurrentPasswordInput,
  handsOverAccount,
  ProfileFields,
  profileFieldNames,
  profileFieldOfToken,
  type ProfileValues,
} from '../../../components/profile-fields';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { useUpdateProfile } from '../api/update-profile';
import { FormGeneralErrors } from '../../../components/form-fields';

const fieldOfToken: Record<string, string> = {
  ...profileFieldOfToken,
  passwordIncorrect: 'currentPassword',
  currentPasswordRequired: 'currentPassword',
};

function valuesOf(profile: TUserProfile): ProfileValues & { currentPassword: string } {
  return {
    firstName: profile.firstName,
    lastName: profile.lastName,
    email: profile.email,
    company: profile.company ?? '',
    timeZone: profile.timeZone,
    language: profile.language,
    currentPassword: '',
  };
}

export function ProfileDetailsForm({ profile }: { profile: TUserProfile }) {
  const { t } = useTranslation();
  const { values, setField, reset } = useFields(valuesOf(profile), (field) =>
    setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const mutation = useUpdateProfile();

  useEffect(() => reset(valuesOf(profile)), [profile, reset]);
  // a new e-mail address is confirmed with the current password, as a new password is
  const emailChanged = handsOverAccount(profile, values);
  // the current password's input is there only with a new e-mail address: the server asking for it
  // otherwise (the address changed elsewhere since this screen loaded) is said above the form
  const fieldNames: readonly string[] = emailChanged ? [...profileFieldNames, 'currentPassword'] : profileFieldNames;
  const labels: FieldLabels = { currentPassword: t('profile.currentPassword') };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    const { currentPassword, ...details } = values;
    mutation.mutate(
      {
        username: profile.username,
        ...details,
        company: values.company.trim() === '' ? null : values.company,
        ...(emailChanged ? { currentPassword } : {}),
      },
      {
        onSuccess: () => alerts.success(t('profile.saved')),
        onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken, labels)),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="profile-details-heading">
      <Stack>
        <FormGeneralErrors errors={errors} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label={t('fields.username')} value={profile.username} readOnly disabled />
          <ProfileFields
            values={values}
            errors={errors.fields}
            onChange={setField}
            own
            timeZoneHint={t('profile.timeZoneHint')}
          />
          {emailChanged ? (
            <CurrentPasswordInput
              value={values.currentPassword}
              error={errors.fields.currentPassword}
              onChange={(value) => setField('currentPassword', value)}
            />
          ) : null}
        </SimpleGrid>
        <Group justify="flex-end">
          <Button type="submit" loading={mutation.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
