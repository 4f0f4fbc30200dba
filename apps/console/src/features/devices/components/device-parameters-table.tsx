import { Badge, Group, Table, Text } from '@mantine/core';
import type { TDeviceParameter, TDeviceParameterValue } from '@manifold/contract';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/data-table';
import { formatList } from '../../../lib/text-join';

/** A value as the reader reads it: yes or no in their language, a number or a text as it is. */
function valueText(t: TFunction, value: TDeviceParameterValue): string {
  if (typeof value === 'boolean') return t(value ? 'devices.parameters.yes' : 'devices.parameters.no');
  return typeof value === 'string' ? value : String(value);
}

function rangeText(parameter: TDeviceParameter): string {
  if (parameter.low === undefined && parameter.high === undefined) return '';
  return `${parameter.low ?? '−∞'} – ${parameter.high ?? '∞'}`;
}

/** The text of a prompt or description in the reader's language, else the first one. */
function textIn(entries: TDeviceParameter['prompt'], language: string): string {
  if (!entries || entries.length === 0) return '';
  const wanted = language.toLowerCase().slice(0, 2);
  return (entries.find((entry) => entry.language.toLowerCase().startsWith(wanted)) ?? entries[0])?.text ?? '';
}

/** A machine's (or a template's) parameters: type, units, range, adjust rule, values, choices, flags. */
export function DeviceParametersTable({ parameters }: { parameters: readonly TDeviceParameter[] }) {
  const { t, i18n } = useTranslation();
  if (parameters.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('devices.parameters.empty')}
      </Text>
    );
  }
  return (
    <DataTable
      compact
      testId="device-parameters"
      minWidth={900}
      caption={t('devices.parameters.caption', { count: parameters.length })}
      columns={[
        t('devices.parameters.parameterId'),
        t('devices.parameters.type'),
        t('devices.parameters.units'),
        t('devices.parameters.range'),
        t('devices.parameters.adjust'),
        t('devices.parameters.values'),
        t('devices.parameters.choices'),
        t('devices.parameters.flags'),
      ]}
    >
      {parameters.map((parameter) => {
        const prompt = textIn(parameter.prompt, i18n.language) || textIn(parameter.description, i18n.language);
        const values = [
          ...(parameter.valueList ?? []).map((value) => valueText(t, value)),
          ...(parameter.resetValue !== undefined
            ? [t('devices.parameters.reset', { value: valueText(t, parameter.resetValue) })]
            : []),
        ];
        const flags = [
          parameter.required ? t('devices.parameters.required') : null,
          parameter.exclusive ? t('devices.parameters.exclusive') : null,
          parameter.encrypt ? t('devices.parameters.encrypt') : null,
        ].filter((flag): flag is string => flag !== null);
        return (
          <Table.Tr key={parameter.parameterId} data-parameter-id={parameter.parameterId}>
            <Table.Td>
              <Text size="sm" fw={500}>
                {parameter.parameterId}
              </Text>
              {prompt ? (
                <Text size="xs" c="dimmed">
                  {prompt}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>{t(`devices.parameters.types.${parameter.type}`)}</Table.Td>
            <Table.Td>{parameter.units ?? ''}</Table.Td>
            <Table.Td>{rangeText(parameter)}</Table.Td>
            <Table.Td>{t(`devices.parameters.adjusts.${parameter.adjust}`)}</Table.Td>
            <Table.Td>{formatList(t, values.map(String))}</Table.Td>
            <Table.Td>{formatList(t, (parameter.choiceList ?? []).map(String))}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {flags.map((flag) => (
                  <Badge key={flag} size="sm" variant="outline" color="gray" c="var(--manifold-text)">
                    {flag}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
          </Table.Tr>
        );
      })}
    </DataTable>
  );
}
