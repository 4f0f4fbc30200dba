import { Button, Group, Select, SimpleGrid, Stack, Switch, TextInput } from '@mantine/core';
import { knownTimeZones, type TUserProfile } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FieldLabels, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import {
  CurrentPasswordInput,
  handsOverAccount,
  ProfileFields,
  profileFieldNames,
  profileFieldOfToken,
} from '../../../components/profile-fields';
import { useFields } from '../../../hooks/use-fields';
import { useAddUser } from '../api/add-user';
import { useEditUser } from '../api/edit-user';
import { useRoles } from '../api/get-roles';
import { FormGeneralErrors } from '../../../components/form-fields';
import { PasswordInput } from '../../../components/password-input';

/** The inputs the form always shows; the current password only when one edits oneself. */
const shownFieldNames = ['username', 'password', 'role', 'useSso', ...profileFieldNames] as const;

/** Where a business error belongs when the server names no field. */
const fieldOfToken: Record<string, string> = {
  usernameTaken: 'username',
  usernameEmpty: 'username',
  userNotPresent: 'username',
  userHasNoPassword: 'password',
  passwordTooShort: 'password',
  passwordIncorrect: 'currentPassword',
  currentPasswordRequired: 'currentPassword',
  userRoleEmpty: 'role',
  userNotAuthorizedToPromoteRole: 'role',
  ...profileFieldOfToken,
};

export interface UserFormProps {
  /** The user to edit; absent to add one. */
  user?: TUserProfile;
  /** The signed-in user's name: editing oneself asks for the current password. */
  currentUsername: string;
  onDone: (profile: TUserProfile) => void;
  onCancel: () => void;
}

/** The browser's zone when the server will know it, else UTC. */
function browserTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return knownTimeZones().has(zone) ? zone : 'UTC';
}

function initialValues(user: TUserProfile | undefined) {
  return {
    username: user?.username ?? '',
    password: '',
    currentPassword: '',
    firstName: user?.firstName ?? '',
    lastName: user?.lastName ?? '',
    email: user?.email ?? '',
    company: user?.company ?? '',
    role: (user?.role ?? 'USER') as string,
    timeZone: user?.timeZone ?? browserTimeZone(),
    language: user?.language ?? 'en_US',
    useSso: user?.useSso ?? false,
  };
}

export function UserForm({ user, currentUsername, onDone, onCancel }: UserFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(initialValues(user), (field) =>
    setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const roles = useRoles();
  const addUser = useAddUser();
  const editUser = useEditUser();
  const editing = user !== undefined;
  const editingSelf = editing && user.username === currentUsername;
  // what the server asks one's own current password for (docs/api.md, Users)
  const handsOver = editing && handsOverAccount(user, values);
  const pending = addUser.isPending || editUser.isPending;

  const roleOptions = (roles.data?.data ?? [values.role]).map((role) => ({ value: role, label: t(`roles.${role}`) }));

  // a problem about an input the form does not show (the current password of another user, whom
  // the server asks no password for) goes above the form, named by its label
  const fieldNames: readonly string[] = editingSelf ? [...shownFieldNames, 'currentPassword'] : shownFieldNames;
  const labels: FieldLabels = { currentPassword: t('profile.currentPassword') };
  const onError = (error: unknown) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken, labels));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    const company = values.company.trim() === '' ? null : values.company;
    const common = {
      firstName: values.firstName,
      lastName: values.lastName,
      email: values.email,
      company,
      role: values.role,
      timeZone: values.timeZone,
      language: values.language,
      useSso: values.useSso,
    };
    if (editing) {
      editUser.mutate(
        {
          username: user.username,
          ...common,
          ...(values.password ? { password: values.password } : {}),
          ...(editingSelf && handsOver ? { currentPassword: values.currentPassword } : {}),
        },
        { onSuccess: onDone, onError },
      );
    } else {
      addUser.mutate({ username: values.username, password: values.password, ...common }, { onSuccess: onDone, onError });
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label={editing ? t('users.editTitle') : t('users.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} testId="user-form-error" />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('fields.username')}
            name="username"
            autoComplete="off"
            withAsterisk={!editing}
            readOnly={editing}
            disabled={editing}
            value={values.username}
            error={errors.fields.username}
            onChange={(event) => setField('username', event.currentTarget.value)}
          />
          <ProfileFields values={values} errors={errors.fields} onChange={setField} />
          <Select
            label={t('fields.role')}
            withAsterisk
            data={roleOptions}
            value={values.role}
            error={errors.fields.role}
            allowDeselect={false}
            onChange={(value) => setField('role', value ?? '')}
          />
          <PasswordInput
            label={editing ? t('users.newPassword') : t('fields.password')}
            description={editing ? t('users.newPasswordHint') : undefined}
            name="password"
            autoComplete="new-password"
            withAsterisk={!editing}
            value={values.password}
            error={errors.fields.password}
            aria-invalid={Boolean(errors.fields.password)}
            onChange={(event) => setField('password', event.currentTarget.value)}
          />
          {editingSelf ? (
            <CurrentPasswordInput
              value={values.currentPassword}
              error={errors.fields.currentPassword}
              onChange={(value) => setField('currentPassword', value)}
            />
          ) : null}
        </SimpleGrid>
        <Switch
          label={t('fields.useSso')}
          checked={values.useSso}
          error={errors.fields.useSso}
          onChange={(event) => setField('useSso', event.currentTarget.checked)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={pending}>
            {editing ? t('common.save') : t('users.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
