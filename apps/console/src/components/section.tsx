import { Card, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled card of a detail screen or form; the heading names the section for screen readers. */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-labelledby={`${id}-heading`} data-testid={id}>
      <Title order={2} size="h4" id={`${id}-heading`} mb="md">
        {title}
      </Title>
      {children}
    </Card>
  );
}
