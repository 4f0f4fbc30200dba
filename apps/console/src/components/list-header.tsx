import { Button, Group } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { PageHead } from './page-head';
import { PageTitle } from './page-title';

export interface ListHeaderProps {
  title: string;
  description: string;
  /** The button that adds an entry, beside the title; none when absent or null (a role that may not add). */
  add?: { label: string; onClick: () => void } | null;
}

/** The head of a list screen: the page head, the heading (`PageTitle`) and the add button. */
export function ListHeader({ title, description, add }: ListHeaderProps) {
  return (
    <>
      <PageHead title={title} description={description} />
      <Group justify="space-between">
        <PageTitle>{title}</PageTitle>
        {add ? (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={add.onClick}>
            {add.label}
          </Button>
        ) : null}
      </Group>
    </>
  );
}
