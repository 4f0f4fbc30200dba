import { ZDeviceParameter, type TDeviceParameterInput } from '@manifold/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { DeviceParametersTable } from './device-parameters-table';

const parameters = (inputs: TDeviceParameterInput[]) => inputs.map((input) => ZDeviceParameter.parse(input));

function valuesOf(parameterId: string): string {
  const row = screen.getByTestId('device-parameters').querySelector(`tr[data-parameter-id="${parameterId}"]`);
  if (!(row instanceof HTMLElement)) throw new Error(`no row for ${parameterId}`);
  return within(row).getAllByRole('cell')[5]?.textContent ?? '';
}

describe('DeviceParametersTable', () => {
  it.each<[TestLocale, string, string]>([
    ['en', 'Yes, reset No', 'PLA, reset PLA'],
    ['zh', '是、重置值 否', 'PLA、重置值 PLA'],
  ])('shows yes/no values in the reader’s language (%s), other values as they are', (locale, yesNo, text) => {
    renderWithProviders(
      <DeviceParametersTable
        parameters={parameters([
          { parameterId: 'supports', type: 'boolean', valueList: [true], resetValue: false },
          { parameterId: 'material', type: 'string', valueList: ['PLA'], resetValue: 'PLA' },
        ])}
      />,
      { locale },
    );
    expect(valuesOf('supports')).toBe(yesNo);
    expect(valuesOf('material')).toBe(text);
  });
});
