import { TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';

/** The search box above a list. */
export function SearchField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <TextInput
      label={label}
      leftSection={<IconSearch size={16} aria-hidden />}
      value={value}
      maw={360}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
