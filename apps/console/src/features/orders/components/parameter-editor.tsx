import { Badge, Group, NumberInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { TDeviceParameterValue } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { promptText, type ParameterField } from './parameter-fields';

export type ParameterValues = Readonly<Record<string, TDeviceParameterValue | undefined>>;

export interface ParameterEditorProps {
  fields: readonly ParameterField[];
  values: ParameterValues;
  onChange: (key: string, value: TDeviceParameterValue | undefined) => void;
  /** Server problems by field key (`deviceParameters.<id>`). */
  errors: Readonly<Record<string, string>>;
}

function rangeText(t: ReturnType<typeof useTranslation>['t'], field: ParameterField): string | undefined {
  const { low, high } = field.bounds;
  if (low !== undefined && high !== undefined) return t('orders.parameters.between', { low, high });
  if (low !== undefined) return t('orders.parameters.atLeast', { low });
  if (high !== undefined) return t('orders.parameters.atMost', { high });
  return undefined;
}

/**
 * Values for the parameters of an authorization, offering only what the parents allow: numbers
 * inside the combined range, choices among the common ones, locked values read-only. An empty
 * value keeps the parent's.
 */
export function ParameterEditor({ fields, values, onChange, errors }: ParameterEditorProps) {
  const { t, i18n } = useTranslation();

  if (fields.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('orders.parameters.none')}
      </Text>
    );
  }

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      {fields.map((field) => {
        const prompt = promptText(field.prompt, i18n.language);
        const label = prompt ? `${prompt} (${field.id})` : field.id;
        const error = errors[field.key];
        const sources = (
          <Group gap={4} component="span">
            {field.sources.map((source) => (
              <Badge key={source} size="xs" variant="light" color="gray" c="var(--manifold-text)">
                {t(`orders.parameters.sources.${source}`)}
              </Badge>
            ))}
            {field.units ? (
              <Text component="span" size="xs" c="dimmed">
                {t('orders.parameters.units', { units: field.units })}
              </Text>
            ) : null}
          </Group>
        );
        const common = {
          label,
          withAsterisk: field.required,
          error,
          'data-parameter': field.key,
        };
        const { lockedValue, choices, low, high } = field.bounds;
        const value = values[field.key];

        if (lockedValue !== undefined) {
          return (
            <Stack key={field.key} gap={2}>
              <TextInput {...common} readOnly value={String(lockedValue)} description={t('orders.parameters.locked')} />
              {sources}
            </Stack>
          );
        }
        if (choices !== undefined || field.type === 'boolean') {
          const data =
            choices !== undefined
              ? choices.map((choice) => ({ value: choice, label: choice }))
              : [
                  { value: 'true', label: t('orders.parameters.yes') },
                  { value: 'false', label: t('orders.parameters.no') },
                ];
          return (
            <Stack key={field.key} gap={2}>
              <Select
                {...common}
                data={data}
                clearable
                placeholder={t('orders.parameters.inherit')}
                description={t('orders.parameters.choices', { count: data.length })}
                value={value === undefined ? null : String(value)}
                comboboxProps={{ withinPortal: true }}
                onChange={(chosen) => {
                  if (chosen === null) onChange(field.key, undefined);
                  else if (field.type === 'boolean') onChange(field.key, chosen === 'true');
                  else onChange(field.key, chosen);
                }}
              />
              {sources}
            </Stack>
          );
        }
        if (field.type === 'integer' || field.type === 'decimal') {
          return (
            <Stack key={field.key} gap={2}>
              <NumberInput
                {...common}
                min={low}
                max={high}
                allowDecimal={field.type === 'decimal'}
                clampBehavior="blur"
                placeholder={t('orders.parameters.inherit')}
                description={rangeText(t, field)}
                value={typeof value === 'number' ? value : ''}
                onChange={(next) => onChange(field.key, typeof next === 'number' ? next : undefined)}
              />
              {sources}
            </Stack>
          );
        }
        return (
          <Stack key={field.key} gap={2}>
            <TextInput
              {...common}
              placeholder={t('orders.parameters.inherit')}
              value={typeof value === 'string' ? value : ''}
              onChange={(event) => {
                const next = event.currentTarget.value;
                onChange(field.key, next === '' ? undefined : next);
              }}
            />
            {sources}
          </Stack>
        );
      })}
    </SimpleGrid>
  );
}
