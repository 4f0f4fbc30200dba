import { Button, Group, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { IconFilter } from '@tabler/icons-react';
import { useState, type ComponentType, type FormEvent, type ReactNode } from 'react';

/** What a filter's input is given. */
export interface FilterInputProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: ReactNode;
}

function PlainTextInput({ onChange, ...props }: FilterInputProps) {
  return <TextInput {...props} onChange={(event) => onChange(event.currentTarget.value)} />;
}

export interface TextFilterFormProps<TName extends string> {
  /** The form's accessible name. */
  title: string;
  /** The text filters in the order they are shown; `input` enters one (a text input unless given). */
  fields: readonly { name: TName; label: string; input?: ComponentType<FilterInputProps> }[];
  /** The filters in force (from the address): the form starts with them, and shows them again when they change. */
  applied: Partial<Record<TName, string>>;
  /** A message under a filter's input, such as the server's refusal of its value (`formErrorsFrom`). */
  errors?: Partial<Record<TName, string>>;
  /** Apply: each filter trimmed, undefined when blank; Clear: every filter undefined. */
  onApply: (filters: Record<TName, string | undefined>) => void;
  applyLabel: string;
  clearLabel: string;
  /** Controls that take effect at once (sorting, the archived switch), right of the buttons. */
  children?: ReactNode;
}

/** Text filters of a list, applied together with a button (or Enter) and cleared together. */
export function TextFilterForm<TName extends string>({
  title,
  fields,
  applied,
  errors,
  onApply,
  applyLabel,
  clearLabel,
  children,
}: TextFilterFormProps<TName>) {
  const each = <T,>(value: (name: TName) => T) =>
    Object.fromEntries(fields.map(({ name }) => [name, value(name)])) as Record<TName, T>;
  const [values, setValues] = useState<Record<TName, string>>(() => each((name) => applied[name] ?? ''));
  // the filters in force changed under the form (back, forward, a link): its inputs show them
  const inForce = JSON.stringify(fields.map(({ name }) => applied[name] ?? ''));
  const [shown, setShown] = useState(inForce);
  if (shown !== inForce) {
    setShown(inForce);
    setValues(each((name) => applied[name] ?? ''));
  }

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onApply(each((name) => values[name].trim() || undefined));
  };

  const clear = () => {
    setValues(each(() => ''));
    onApply(each(() => undefined));
  };

  return (
    <form onSubmit={apply} aria-label={title}>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {fields.map(({ name, label, input: Input = PlainTextInput }) => (
            <Input
              key={name}
              label={label}
              value={values[name]}
              error={errors?.[name]}
              onChange={(value) => setValues((previous) => ({ ...previous, [name]: value }))}
            />
          ))}
        </SimpleGrid>
        <Group justify="space-between" align="flex-end">
          <Group>
            <Button type="submit" variant="default" leftSection={<IconFilter size={16} aria-hidden />}>
              {applyLabel}
            </Button>
            <Button variant="default" onClick={clear}>
              {clearLabel}
            </Button>
          </Group>
          {children}
        </Group>
      </Stack>
    </form>
  );
}
