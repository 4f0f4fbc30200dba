import { Button, Group, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { PageHead } from './page-head';

export interface ListHeaderProps {
  title: string;
  description: string;
  /** The button that adds an entry, beside the title; none when absent or null (a role that may not add). */
  add?: { label: string; onClick: () => void } | null;
}

/** The head of a list screen: the page head, the heading and the add button. */
export function ListHeader({ title, description, add }: ListHeaderProps) {
  return (
    <>
      <PageHead title={title} description={description} />
      <Group justify="space-between">
        <Title order={1}>{title}</Title>
        {add ? (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={add.onClick}>
            {add.label}
          </Button>
        ) : null}
      </Group>
    </>
  );
}
