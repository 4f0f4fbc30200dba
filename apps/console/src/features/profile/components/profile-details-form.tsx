import { Alert, Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { TUserProfile } from '@manifold/contract';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { consoleProfileLanguages } from '../../../lib/i18n';
import { timeZoneGroups } from '../../../lib/time-zones';
import { useUpdateProfile } from '../api/update-profile';

const fieldNames = ['firstName', 'lastName', 'email', 'company', 'timeZone', 'language'] as const;
const fieldOfToken: Record<string, string> = {
  userFirstNameEmpty: 'firstName',
  userLastNameEmpty: 'lastName',
  userEmailEmpty: 'email',
  userEmailInvalid: 'email',
  userTimeZoneEmpty: 'timeZone',
  userLanguageUndefined: 'language',
};

function valuesOf(profile: TUserProfile) {
  return {
    firstName: profile.firstName,
    lastName: profile.lastName,
    email: profile.email,
    company: profile.company ?? '',
    timeZone: profile.timeZone,
    language: profile.language,
  };
}

export function ProfileDetailsForm({ profile }: { profile: TUserProfile }) {
  const { t } = useTranslation();
  const { values, setField, reset } = useFields(valuesOf(profile));
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const mutation = useUpdateProfile();

  useEffect(() => reset(valuesOf(profile)), [profile, reset]);

  const languages = useMemo(() => {
    const codes: string[] = [...consoleProfileLanguages];
    if (profile.language && !codes.includes(profile.language)) codes.push(profile.language);
    return codes.map((code) => ({ value: code, label: t(`languages.${code}`, { defaultValue: code }) }));
  }, [profile.language, t]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    mutation.mutate(
      { username: profile.username, ...values, company: values.company.trim() === '' ? null : values.company },
      {
        onSuccess: () => alerts.success(t('profile.saved')),
        onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="profile-details-heading">
      <Stack>
        {errors.general.length > 0 ? (
          <Alert color="red" variant="light" role="alert">
            <Text size="sm">{errors.general.join(' ')}</Text>
          </Alert>
        ) : null}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label={t('fields.username')} value={profile.username} readOnly disabled />
          <TextInput
            label={t('fields.email')}
            name="email"
            type="email"
            autoComplete="email"
            withAsterisk
            value={values.email}
            error={errors.fields.email}
            onChange={(event) => setField('email', event.currentTarget.value)}
          />
          <TextInput
            label={t('fields.firstName')}
            name="firstName"
            autoComplete="given-name"
            withAsterisk
            value={values.firstName}
            error={errors.fields.firstName}
            onChange={(event) => setField('firstName', event.currentTarget.value)}
          />
          <TextInput
            label={t('fields.lastName')}
            name="lastName"
            autoComplete="family-name"
            withAsterisk
            value={values.lastName}
            error={errors.fields.lastName}
            onChange={(event) => setField('lastName', event.currentTarget.value)}
          />
          <TextInput
            label={t('fields.company')}
            name="company"
            autoComplete="organization"
            value={values.company}
            error={errors.fields.company}
            onChange={(event) => setField('company', event.currentTarget.value)}
          />
          <Select
            label={t('fields.language')}
            withAsterisk
            data={languages}
            value={values.language}
            error={errors.fields.language}
            allowDeselect={false}
            onChange={(value) => setField('language', value ?? '')}
          />
          <Select
            label={t('fields.timeZone')}
            description={t('profile.timeZoneHint')}
            withAsterisk
            searchable
            data={timeZoneGroups()}
            value={values.timeZone}
            error={errors.fields.timeZone}
            allowDeselect={false}
            maxDropdownHeight={320}
            limit={200}
            nothingFoundMessage={t('common.nothingFound')}
            onChange={(value) => setField('timeZone', value ?? '')}
          />
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
