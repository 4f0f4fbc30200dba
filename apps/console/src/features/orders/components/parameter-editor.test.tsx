import { narrowingProblems, type TDeviceParameter, type TDeviceParameterInput, ZDeviceParameter } from '@manifold/contract';
import { fireEvent, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render';
import { ParameterEditor, type ParameterValues } from './parameter-editor';
import { deviceParameterFields, narrowedDeviceParameter, valueAllowed, type ParameterField } from './parameter-fields';

const parameter = (input: TDeviceParameterInput): TDeviceParameter => ZDeviceParameter.parse(input);

const orderParameters = [
  parameter({ parameterId: 'nozzleTemp', type: 'integer', low: 180, high: 260, resetValue: 210, units: 'C' }),
  parameter({
    parameterId: 'material',
    type: 'choice',
    choicePresent: true,
    choiceList: ['PLA', 'PETG', 'ABS'],
    resetValue: 'PLA',
  }),
  parameter({ parameterId: 'layerHeight', type: 'decimal', adjust: 'LOCK', resetValue: 0.2 }),
  parameter({ parameterId: 'bedTemp', type: 'integer', adjust: 'INCREASE', low: 40, high: 110, resetValue: 60 }),
];
const machineParameters = [
  parameter({ parameterId: 'nozzleTemp', type: 'integer', low: 150, high: 240, resetValue: 200 }),
  parameter({
    parameterId: 'material',
    type: 'choice',
    choicePresent: true,
    choiceList: ['PLA', 'PETG', 'TPU'],
    resetValue: 'PLA',
  }),
  parameter({ parameterId: 'fanSpeed', type: 'integer', adjust: 'DECREASE', low: 0, high: 100, resetValue: 80 }),
];

function field(fields: ParameterField[], id: string): ParameterField {
  const found = fields.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no field ${id}`);
  return found;
}

function Editor({ fields }: { fields: ParameterField[] }) {
  const [values, setValues] = useState<ParameterValues>({});
  return (
    <ParameterEditor
      fields={fields}
      values={values}
      errors={{ 'deviceParameters.fanSpeed': 'Out of range' }}
      onChange={(key, value) => setValues((previous) => ({ ...previous, [key]: value }))}
    />
  );
}

describe('parameter editor bounds', () => {
  const fields = deviceParameterFields(orderParameters, machineParameters);

  it('combines the order\u2019s and the machine\u2019s bounds into the tightest ones', () => {
    expect(fields.map((candidate) => candidate.id)).toEqual(['nozzleTemp', 'material', 'layerHeight', 'bedTemp', 'fanSpeed']);
    expect(field(fields, 'nozzleTemp').bounds).toMatchObject({ low: 180, high: 240 });
    expect(field(fields, 'nozzleTemp').sources).toEqual(['order', 'device']);
    expect(field(fields, 'material').bounds.choices).toEqual(['PLA', 'PETG']);
    expect(field(fields, 'layerHeight').bounds.lockedValue).toBe(0.2);
    // INCREASE starts at the value carried, DECREASE ends there
    expect(field(fields, 'bedTemp').bounds).toMatchObject({ low: 60, high: 110 });
    expect(field(fields, 'fanSpeed').bounds).toMatchObject({ low: 0, high: 80 });
  });

  it('allows only values inside the bounds', () => {
    expect(valueAllowed(field(fields, 'nozzleTemp'), 240)).toBe(true);
    expect(valueAllowed(field(fields, 'nozzleTemp'), 250)).toBe(false);
    expect(valueAllowed(field(fields, 'nozzleTemp'), 179)).toBe(false);
    expect(valueAllowed(field(fields, 'nozzleTemp'), 200.5)).toBe(false);
    expect(valueAllowed(field(fields, 'material'), 'ABS')).toBe(false);
    expect(valueAllowed(field(fields, 'material'), 'PETG')).toBe(true);
    expect(valueAllowed(field(fields, 'layerHeight'), 0.3)).toBe(false);
  });

  it('builds parameters that the contract\u2019s narrowing rules accept under both parents', () => {
    const chosen: [string, number | string][] = [
      ['nozzleTemp', 235],
      ['material', 'PETG'],
      ['bedTemp', 70],
      ['fanSpeed', 50],
    ];
    for (const [id, value] of chosen) {
      const parents = [...orderParameters, ...machineParameters].filter((candidate) => candidate.parameterId === id);
      const child = narrowedDeviceParameter(field(fields, id), parents, value);
      expect(ZDeviceParameter.safeParse(child).success).toBe(true);
      for (const parent of parents) expect(narrowingProblems(parent, child, 'order', 'authorize'), id).toEqual([]);
    }
  });

  it('renders numbers clamped to the range, choices limited to the allowed ones and locked values read-only', () => {
    renderWithProviders(<Editor fields={fields} />);

    const nozzle = screen.getByRole('textbox', { name: 'nozzleTemp' });
    expect(screen.getByText('Between 180 and 240')).toBeTruthy();
    fireEvent.change(nozzle, { target: { value: '500' } });
    fireEvent.blur(nozzle);
    expect((nozzle as HTMLInputElement).value).toBe('240');
    fireEvent.change(nozzle, { target: { value: '100' } });
    fireEvent.blur(nozzle);
    expect((nozzle as HTMLInputElement).value).toBe('180');

    const locked = screen.getByRole('textbox', { name: 'layerHeight' }) as HTMLInputElement;
    expect(locked.readOnly).toBe(true);
    expect(locked.value).toBe('0.2');

    const material = screen.getByRole('textbox', { name: 'material' });
    fireEvent.click(material);
    const listbox = screen.getByRole('listbox');
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['PLA', 'PETG']);

    expect(screen.getByText('Out of range')).toBeTruthy();
  });
});
