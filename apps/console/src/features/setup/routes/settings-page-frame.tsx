import { Card, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { PageHead } from '../../../components/page-head';

/** One settings page: its head, heading, introduction and content in a card. */
export function SettingsPageFrame({
  id,
  title,
  intro,
  children,
}: {
  id: string;
  title: string;
  intro: string;
  children: ReactNode;
}) {
  return (
    <Stack gap="md" maw={id === 'api' ? undefined : 860}>
      <PageHead title={title} description={intro} />
      <Card withBorder component="section" aria-labelledby={`settings-${id}-heading`}>
        <Title order={2} size="h3" id={`settings-${id}-heading`} mb={4}>
          {title}
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          {intro}
        </Text>
        {children}
      </Card>
    </Stack>
  );
}
