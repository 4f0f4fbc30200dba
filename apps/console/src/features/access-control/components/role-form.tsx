import { Select, Stack } from '@mantine/core';
import {
  accessConstraints,
  accessRoleCodes,
  roleCodeGrants,
  type TAccessConstraint,
  type TAccessRole,
  type TAccessRoleCode,
  type TUserProfile,
} from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormButtons } from '../../../components/form-buttons';
import { FormGeneralErrors } from '../../../components/form-fields';
import { SearchMultiSelect, type SearchSource } from '../../../components/search-select';
import { useFields } from '../../../hooks/use-fields';
import { useFormSubmit } from '../../../hooks/use-form-submit';
import { userOption, userPickerQueryOptions } from '../../../lib/pickers';
import { useAddAccessRole, useEditAccessRole } from '../api/access-controls';

const fieldNames = ['roleCode', 'constraintName', 'roleMembers'] as const;
const fieldOfToken: Record<string, string> = { accessRoleInvalid: 'roleCode', userNotPresent: 'roleMembers' };
const users: SearchSource<TUserProfile> = { queryOptions: userPickerQueryOptions, toOption: userOption };

export interface RoleFormProps {
  /** The role to change; without it the form adds one. */
  role?: TAccessRole;
  onDone: (role: TAccessRole) => void;
  onCancel: () => void;
}

/** Adds an access role or changes one (the member list given replaces the stored one). */
export function RoleForm({ role, onDone, onCancel }: RoleFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      roleCode: role?.roleCode ?? ('user' as TAccessRoleCode),
      constraintName: role?.constraintName ?? ('cui-download' as TAccessConstraint),
      roleMembers: role?.roleMembers ?? ([] as string[]),
    },
    (field) => clearFieldError(field),
  );
  const add = useAddAccessRole();
  const edit = useEditAccessRole();
  const granted = accessConstraints.filter((constraint) => roleCodeGrants(values.roleCode, constraint));
  // a role without members is refused only as a malformed request: said on its input instead
  const [membersMissing, setMembersMissing] = useState<string | undefined>(undefined);
  const { errors, submit, clearFieldError } = useFormSubmit(fieldNames, fieldOfToken, onDone, (handlers) => {
    const lacking = values.roleMembers.length === 0 ? t('accessControl.roles.membersRequired') : undefined;
    setMembersMissing(lacking);
    if (lacking !== undefined) return;
    if (role) edit.mutate({ accessRoleId: role.accessRoleId, ...values }, handlers);
    else add.mutate(values, handlers);
  });

  return (
    <form onSubmit={submit} noValidate aria-label={role ? t('accessControl.roles.editTitle') : t('accessControl.roles.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        <Select
          label={t('accessControl.roles.code')}
          description={t('accessControl.roles.codeHint')}
          withAsterisk
          allowDeselect={false}
          data={accessRoleCodes.map((value) => ({ value, label: value }))}
          value={values.roleCode}
          error={errors.fields.roleCode}
          onChange={(value) => {
            const code = (value ?? 'user') as TAccessRoleCode;
            setField('roleCode', code);
            if (!roleCodeGrants(code, values.constraintName)) {
              setField(
                'constraintName',
                accessConstraints.find((constraint) => roleCodeGrants(code, constraint))!,
              );
            }
          }}
        />
        <Select
          label={t('accessControl.roles.constraint')}
          withAsterisk
          allowDeselect={false}
          data={granted.map((value) => ({ value, label: t(`accessControl.constraint.${value}`) }))}
          value={values.constraintName}
          error={errors.fields.constraintName}
          onChange={(value) => setField('constraintName', (value ?? granted[0]) as TAccessConstraint)}
        />
        <SearchMultiSelect
          source={users}
          label={t('accessControl.roles.members')}
          withAsterisk
          value={values.roleMembers}
          error={membersMissing ?? errors.fields.roleMembers}
          onChange={(members) => setField('roleMembers', members)}
        />
        <FormButtons
          onCancel={onCancel}
          pending={add.isPending || edit.isPending}
          submitLabel={role ? t('common.save') : t('accessControl.roles.add')}
        />
      </Stack>
    </form>
  );
}
