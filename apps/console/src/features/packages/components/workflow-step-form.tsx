import { Select, Stack, TextInput, Textarea } from '@mantine/core';
import { workflowStepTypes, type TDeviceTemplate, type TWorkflowStep, type TWorkflowStepType } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { FormButtons } from '../../../components/form-buttons';
import { useFields } from '../../../hooks/use-fields';
import { useFormSubmit } from '../../../hooks/use-form-submit';
import { useAddWorkflowStep } from '../api/add-workflow-step';
import { useEditWorkflowStep } from '../api/edit-workflow-step';
import { FormGeneralErrors } from '../../../components/form-fields';

const fieldNames = ['type', 'name', 'instructions', 'deviceTemplateId'] as const;
const fieldOfToken: Record<string, string> = {
  workflowStepInstructionsEmpty: 'instructions',
  workflowStepDeviceTemplateRequired: 'deviceTemplateId',
  deviceTemplateNotPresent: 'deviceTemplateId',
};

function isStepType(value: string | null): value is TWorkflowStepType {
  return workflowStepTypes.some((type) => type === value);
}

export interface WorkflowStepFormProps {
  dsiId: string;
  step?: TWorkflowStep;
  /** The package's templates and the library's, for device steps. */
  templates: readonly TDeviceTemplate[];
  onDone: () => void;
  onCancel: () => void;
}

/** Adds a step at the end of the workflow, or edits one. */
export function WorkflowStepForm({ dsiId, step, templates, onDone, onCancel }: WorkflowStepFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(
    {
      type: step?.type ?? ('manual' as TWorkflowStepType),
      name: step?.name ?? '',
      instructions: step?.instructions ?? '',
      deviceTemplateId: step?.deviceTemplateId ?? null,
    },
    (field) => clearFieldError(field),
  );
  const add = useAddWorkflowStep();
  const edit = useEditWorkflowStep();
  const { errors, submit, clearFieldError } = useFormSubmit(fieldNames, fieldOfToken, onDone, (handlers) => {
    const input = {
      dsiId,
      type: values.type,
      name: values.name,
      instructions: values.instructions,
      deviceTemplateId: values.type === 'device' ? values.deviceTemplateId : null,
    };
    if (step) edit.mutate({ ...input, workflowStepId: step.workflowStepId }, handlers);
    else add.mutate(input, handlers);
  });

  const templateOptions = templates.map((template) => ({
    value: template.deviceTemplateId,
    label: template.dsiId === null ? t('packages.steps.libraryTemplate', { name: template.name }) : template.name,
  }));

  return (
    <form onSubmit={submit} noValidate aria-label={step ? t('packages.steps.editTitle') : t('packages.steps.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        <Select
          label={t('packages.steps.type')}
          withAsterisk
          data={workflowStepTypes.map((value) => ({ value, label: t(`packages.steps.types.${value}`) }))}
          value={values.type}
          allowDeselect={false}
          error={errors.fields.type}
          onChange={(value) => {
            if (isStepType(value)) setField('type', value);
          }}
        />
        <TextInput
          label={t('packages.steps.name')}
          value={values.name}
          error={errors.fields.name}
          onChange={(event) => setField('name', event.currentTarget.value)}
        />
        {values.type === 'device' ? (
          <Select
            label={t('packages.steps.deviceTemplate')}
            withAsterisk
            data={templateOptions}
            value={values.deviceTemplateId}
            error={errors.fields.deviceTemplateId}
            nothingFoundMessage={t('packages.steps.noTemplates')}
            placeholder={templateOptions.length === 0 ? t('packages.steps.noTemplates') : undefined}
            onChange={(value) => setField('deviceTemplateId', value)}
          />
        ) : null}
        <Textarea
          label={values.type === 'manual' ? t('packages.steps.instructions') : t('packages.steps.notes')}
          withAsterisk={values.type === 'manual'}
          autosize
          minRows={3}
          value={values.instructions}
          error={errors.fields.instructions}
          onChange={(event) => setField('instructions', event.currentTarget.value)}
        />
        <FormButtons
          onCancel={onCancel}
          pending={add.isPending || edit.isPending}
          submitLabel={step ? t('common.save') : t('packages.steps.add')}
        />
      </Stack>
    </form>
  );
}
