import type { ComponentType } from 'react';
import type { TDevice, TPackage } from '@manifold/contract';
import { devicePickerQueryOptions, deviceOption, packageOption, packagePickerQueryOptions } from '../lib/pickers';
import type { SearchSource } from './server-search';
import { SuggestInput } from './suggest-input';
import type { FilterInputProps } from './text-filter-form';

const designs: SearchSource<TPackage> = { queryOptions: packagePickerQueryOptions, toOption: packageOption };
const machines: SearchSource<TDevice> = { queryOptions: (search) => devicePickerQueryOptions(search), toOption: deviceOption };

/** A design package id (`dsiId`), suggested by design name from this server's packages; any id may be typed. */
export function DesignIdInput(props: FilterInputProps) {
  return <SuggestInput source={designs} {...props} />;
}

/** A machine id (`deviceId`), suggested by name, id or serial number from this server's machines; any id may be typed. */
export function MachineIdInput(props: FilterInputProps) {
  return <SuggestInput source={machines} {...props} />;
}

const idInputs: Readonly<Record<string, ComponentType<FilterInputProps>>> = {
  dsiId: DesignIdInput,
  filterByDsiId: DesignIdInput,
  deviceId: MachineIdInput,
};

/** A text filter of a list: the design and machine id filters with suggestions, any other a text input. */
export function filterField<TName extends string>(name: TName, label: string) {
  const input = idInputs[name];
  return { name, label, ...(input ? { input } : {}) };
}
