import { Button, Group, Stack, TextInput, Textarea } from '@mantine/core';
import type { TGroup, TUserProfile } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { SearchMultiSelect, type SearchSource } from '../../../components/search-select';
import { useFields } from '../../../hooks/use-fields';
import { userOption, userPickerQueryOptions } from '../../../lib/pickers';
import { useAddGroup } from '../api/add-group';
import { useEditGroup } from '../api/edit-group';
import { FormGeneralErrors } from '../../../components/form-fields';

const fieldNames = ['name', 'description', 'members'] as const;
const fieldOfToken: Record<string, string> = {
  groupNameEmpty: 'name',
  groupNameTaken: 'name',
  userNotPresent: 'members',
};

const users: SearchSource<TUserProfile> = { queryOptions: userPickerQueryOptions, toOption: userOption };

export interface GroupFormProps {
  group?: TGroup;
  onDone: (group: TGroup) => void;
  onCancel: () => void;
}

export function GroupForm({ group, onDone, onCancel }: GroupFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      name: group?.name ?? '',
      description: group?.description ?? '',
      members: group?.members ?? [],
    },
    (field) => setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const addGroup = useAddGroup();
  const editGroup = useEditGroup();
  const pending = addGroup.isPending || editGroup.isPending;

  const onError = (error: unknown) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    if (group) editGroup.mutate({ userGroupId: group.userGroupId, ...values }, { onSuccess: onDone, onError });
    else addGroup.mutate(values, { onSuccess: onDone, onError });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={group ? t('groups.editTitle') : t('groups.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        <TextInput
          label={t('groups.name')}
          name="name"
          withAsterisk
          value={values.name}
          error={errors.fields.name}
          onChange={(event) => setField('name', event.currentTarget.value)}
        />
        <Textarea
          label={t('groups.descriptionField')}
          name="description"
          autosize
          minRows={2}
          value={values.description}
          error={errors.fields.description}
          onChange={(event) => setField('description', event.currentTarget.value)}
        />
        <SearchMultiSelect
          source={users}
          label={t('groups.members')}
          value={values.members}
          clearable
          error={errors.fields.members}
          onChange={(members) => setField('members', members)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={pending}>
            {group ? t('common.save') : t('groups.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
