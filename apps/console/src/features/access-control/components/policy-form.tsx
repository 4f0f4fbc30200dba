import { Autocomplete, Button, Group, MultiSelect, Stack, TagsInput } from '@mantine/core';
import { accessConstraints, type TAccessConstraint, type TAccessControl } from '@manifold/contract';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { useFields } from '../../../hooks/use-fields';
import { useAddAccessPolicy } from '../api/access-controls';

const fieldNames = ['policyName', 'constraints', 'incomingIpAddresses'] as const;
const fieldOfToken: Record<string, string> = {
  accessControlNameTaken: 'policyName',
  accessControlInvalid: 'incomingIpAddresses',
};
/** The spec's example policies, offered as names. */
const examplePolicies = ['Internal Wired', 'Internal WiFi', 'VPN', 'External', 'Mobile Device'];

export function PolicyForm({ onDone, onCancel }: { onDone: (policy: TAccessControl) => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const { values, setField } = useFields({
    policyName: '',
    constraints: [] as TAccessConstraint[],
    incomingIpAddresses: [] as string[],
  });
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const add = useAddAccessPolicy();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    add.mutate(values, { onSuccess: onDone, onError: (error) => setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken)) });
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('accessControl.policies.addTitle')}>
      <Stack>
        {errors.general.length > 0 ? <ErrorAlert>{errors.general.join(' ')}</ErrorAlert> : null}
        <Autocomplete
          label={t('accessControl.policies.name')}
          withAsterisk
          data={examplePolicies}
          value={values.policyName}
          error={errors.fields.policyName}
          onChange={(value) => setField('policyName', value)}
        />
        <MultiSelect
          label={t('accessControl.constraints')}
          withAsterisk
          searchable
          data={accessConstraints.map((value) => ({ value, label: t(`accessControl.constraint.${value}`) }))}
          value={values.constraints}
          error={errors.fields.constraints}
          onChange={(value) => setField('constraints', value as TAccessConstraint[])}
        />
        <TagsInput
          label={t('accessControl.policies.ranges')}
          description={t('accessControl.policies.rangesHint')}
          withAsterisk
          value={values.incomingIpAddresses}
          error={errors.fields.incomingIpAddresses}
          onChange={(value) => setField('incomingIpAddresses', value)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={add.isPending}>
            {t('accessControl.policies.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
