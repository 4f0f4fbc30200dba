import { Autocomplete, MultiSelect, Stack, TagsInput } from '@mantine/core';
import { accessConstraints, type TAccessConstraint, type TAccessControl } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormButtons } from '../../../components/form-buttons';
import { FormGeneralErrors } from '../../../components/form-fields';
import { useFields } from '../../../hooks/use-fields';
import { useFormSubmit } from '../../../hooks/use-form-submit';
import { useAddAccessPolicy, useEditAccessPolicy } from '../api/access-controls';

const fieldNames = ['policyName', 'constraints', 'incomingIpAddresses'] as const;
const fieldOfToken: Record<string, string> = {
  accessControlNameTaken: 'policyName',
  accessControlInvalid: 'incomingIpAddresses',
};
/** The spec's example policies, offered as names. */
const examplePolicies = ['Internal Wired', 'Internal WiFi', 'VPN', 'External', 'Mobile Device'];

export interface PolicyFormProps {
  /** The policy to change; without it the form adds one. */
  policy?: TAccessControl;
  onDone: (policy: TAccessControl) => void;
  onCancel: () => void;
}

/** Adds an access policy or changes one (all its fields sent again). */
export function PolicyForm({ policy, onDone, onCancel }: PolicyFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      policyName: policy?.policyName ?? '',
      constraints: policy?.constraints ?? ([] as TAccessConstraint[]),
      incomingIpAddresses: policy?.incomingIpAddresses ?? ([] as string[]),
    },
    (field) => clearFieldError(field),
  );
  const add = useAddAccessPolicy();
  const edit = useEditAccessPolicy();
  // what the server requires and refuses only as a malformed request: said on its input instead
  const [missing, setMissing] = useState<Record<string, string>>({});
  const { errors, submit, clearFieldError } = useFormSubmit(fieldNames, fieldOfToken, onDone, (handlers) => {
    const lacking: Record<string, string> = {
      ...(values.policyName.trim() === '' ? { policyName: t('accessControl.policies.nameRequired') } : {}),
      ...(values.constraints.length === 0 ? { constraints: t('accessControl.policies.constraintsRequired') } : {}),
      ...(values.incomingIpAddresses.length === 0 ? { incomingIpAddresses: t('accessControl.policies.rangesRequired') } : {}),
    };
    setMissing(lacking);
    if (Object.keys(lacking).length > 0) return;
    if (policy) edit.mutate({ accessControlId: policy.accessControlId, ...values }, handlers);
    else add.mutate(values, handlers);
  });
  const fieldErrors = { ...errors.fields, ...missing };

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={policy ? t('accessControl.policies.editTitle') : t('accessControl.policies.addTitle')}
    >
      <Stack>
        <FormGeneralErrors errors={errors} />
        <Autocomplete
          label={t('accessControl.policies.name')}
          withAsterisk
          data={examplePolicies}
          value={values.policyName}
          error={fieldErrors.policyName}
          onChange={(value) => setField('policyName', value)}
        />
        <MultiSelect
          label={t('accessControl.constraints')}
          withAsterisk
          searchable
          data={accessConstraints.map((value) => ({ value, label: t(`accessControl.constraint.${value}`) }))}
          value={values.constraints}
          error={fieldErrors.constraints}
          onChange={(value) => setField('constraints', value as TAccessConstraint[])}
        />
        <TagsInput
          label={t('accessControl.policies.ranges')}
          description={t('accessControl.policies.rangesHint')}
          withAsterisk
          value={values.incomingIpAddresses}
          error={fieldErrors.incomingIpAddresses}
          onChange={(value) => setField('incomingIpAddresses', value)}
        />
        <FormButtons
          onCancel={onCancel}
          pending={add.isPending || edit.isPending}
          submitLabel={policy ? t('common.save') : t('accessControl.policies.add')}
        />
      </Stack>
    </form>
  );
}
