import { Select, TextInput } from '@mantine/core';
import type { TUserProfile } from '@manifold/contract';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { consoleProfileLanguages } from '../lib/i18n';
import { timeZoneGroups } from '../lib/time-zones';
import { PasswordInput } from './password-input';

/** A user's own details, as the user form and the profile screen edit them. */
export interface ProfileValues {
  email: string;
  firstName: string;
  lastName: string;
  company: string;
  timeZone: string;
  language: string;
}

export const profileFieldNames = ['firstName', 'lastName', 'email', 'company', 'timeZone', 'language'] as const;

/** Where a business error about a user's details belongs when the server names no field. */
export const profileFieldOfToken: Record<string, string> = {
  userFirstNameEmpty: 'firstName',
  userLastNameEmpty: 'lastName',
  userEmailEmpty: 'email',
  userEmailInvalid: 'email',
  userTimeZoneEmpty: 'timeZone',
  userLanguageUndefined: 'language',
};

/**
 * Whether a change of one's own profile needs the current password (the server's rule, docs/api.md
 * Users): a new password, a different e-mail address, or single sign-on turned on.
 */
export function handsOverAccount(
  profile: Pick<TUserProfile, 'email' | 'useSso'>,
  change: { email: string; password?: string; useSso?: boolean },
): boolean {
  return Boolean(change.password) || change.email.trim() !== profile.email || (change.useSso === true && !profile.useSso);
}

/** The current password, which confirms a change of one's own that {@link handsOverAccount}. */
export function CurrentPasswordInput({
  value,
  error,
  onChange,
}: {
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <PasswordInput
      label={t('profile.currentPassword')}
      description={t('profile.currentPasswordHint')}
      name="currentPassword"
      autoComplete="current-password"
      value={value}
      error={error}
      aria-invalid={Boolean(error)}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}

export interface ProfileFieldsProps {
  values: ProfileValues;
  errors: Partial<Record<string, string>>;
  onChange: <K extends keyof ProfileValues>(key: K, value: ProfileValues[K]) => void;
  /** The signed-in user's own details: the browser may fill them in. */
  own?: boolean;
  timeZoneHint?: string;
}

/**
 * E-mail, names, company, time zone and language: the fields of a user's details, laid out as
 * cells of the caller's grid so it can add its own (username, role, password) around them.
 */
export function ProfileFields({ values, errors, onChange, own = false, timeZoneHint }: ProfileFieldsProps) {
  const { t } = useTranslation();
  const languages = useMemo(() => {
    const codes: string[] = [...consoleProfileLanguages];
    if (values.language && !codes.includes(values.language)) codes.push(values.language);
    return codes.map((code) => ({ value: code, label: t(`languages.${code}`, { defaultValue: code }) }));
  }, [values.language, t]);
  const autoComplete = (token: string) => (own ? token : 'off');

  return (
    <>
      <TextInput
        label={t('fields.email')}
        name="email"
        type="email"
        autoComplete={autoComplete('email')}
        withAsterisk
        value={values.email}
        error={errors.email}
        onChange={(event) => onChange('email', event.currentTarget.value)}
      />
      <TextInput
        label={t('fields.firstName')}
        name="firstName"
        autoComplete={autoComplete('given-name')}
        withAsterisk
        value={values.firstName}
        error={errors.firstName}
        onChange={(event) => onChange('firstName', event.currentTarget.value)}
      />
      <TextInput
        label={t('fields.lastName')}
        name="lastName"
        autoComplete={autoComplete('family-name')}
        withAsterisk
        value={values.lastName}
        error={errors.lastName}
        onChange={(event) => onChange('lastName', event.currentTarget.value)}
      />
      <TextInput
        label={t('fields.company')}
        name="company"
        autoComplete={autoComplete('organization')}
        value={values.company}
        error={errors.company}
        onChange={(event) => onChange('company', event.currentTarget.value)}
      />
      <Select
        label={t('fields.timeZone')}
        description={timeZoneHint}
        withAsterisk
        searchable
        data={timeZoneGroups()}
        value={values.timeZone}
        error={errors.timeZone}
        allowDeselect={false}
        maxDropdownHeight={300}
        limit={200}
        nothingFoundMessage={t('common.nothingFound')}
        comboboxProps={{ withinPortal: true }}
        onChange={(value) => onChange('timeZone', value ?? '')}
      />
      <Select
        label={t('fields.language')}
        withAsterisk
        data={languages}
        value={values.language}
        error={errors.language}
        allowDeselect={false}
        onChange={(value) => onChange('language', value ?? '')}
      />
    </>
  );
}
