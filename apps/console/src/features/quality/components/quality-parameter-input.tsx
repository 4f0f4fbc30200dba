import { Checkbox, NumberInput, Select, TextInput } from '@mantine/core';
import type { TDeviceParameterValue, TQualityParameter } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { boundsText } from '../../../lib/parameter-bounds';

/**
 * One measured value of a quality parameter, by its type: numbers are not clamped to the bounds
 * (the server judges them and a refusal shows on the field), choices from the list.
 */
export function QualityParameterInput({
  parameter,
  value,
  onChange,
  error,
}: {
  parameter: TQualityParameter;
  value: TDeviceParameterValue | undefined;
  onChange: (value: TDeviceParameterValue | undefined) => void;
  error: string | undefined;
}) {
  const { t } = useTranslation();
  const label = parameter.units ? `${parameter.id} (${parameter.units})` : parameter.id;
  const bounds = boundsText(parameter);
  const description = bounds ? t('quality.bounds', { bounds }) : undefined;
  const common = { label, description, error, required: parameter.required, 'data-parameter': parameter.id };
  switch (parameter.type) {
    case 'integer':
    case 'decimal':
      return (
        <NumberInput
          {...common}
          value={typeof value === 'number' ? value : ''}
          clampBehavior="none"
          allowDecimal={parameter.type === 'decimal'}
          onChange={(next) => onChange(typeof next === 'number' ? next : undefined)}
        />
      );
    case 'choice':
      return (
        <Select
          {...common}
          data={parameter.choiceList ?? []}
          value={typeof value === 'string' ? value : null}
          clearable
          onChange={(next) => onChange(next ?? undefined)}
        />
      );
    case 'boolean':
      return (
        <Checkbox
          label={label}
          description={description}
          error={error}
          checked={value === true}
          onChange={(event) => onChange(event.currentTarget.checked)}
        />
      );
    default:
      return (
        <TextInput
          {...common}
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange(event.currentTarget.value || undefined)}
        />
      );
  }
}
