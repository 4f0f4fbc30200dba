import { Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useId } from 'react';

export interface ListFilterProps<T extends string> {
  /** The switch's visible label ("State", "Show"). */
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  /** A new choice; a list goes back to its first page here. */
  onChange: (value: T) => void;
}

/** The labelled switch above a list that chooses which of its entries to show. */
export function ListFilter<T extends string>({ label, value, options, onChange }: ListFilterProps<T>) {
  const labelId = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={labelId}>
        {label}
      </Text>
      <Group>
        <SegmentedControl
          aria-labelledby={labelId}
          value={value}
          data={options.map((option) => ({ value: option.value, label: option.label }))}
          onChange={(chosen) => {
            const option = options.find((candidate) => candidate.value === chosen);
            if (option) onChange(option.value);
          }}
        />
      </Group>
    </Stack>
  );
}
