import { Card, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useSectionOrder } from './page-title';

/**
 * A titled card of a detail screen or form; the heading names the section for screen readers. It is
 * an `h2`, or an `h3` under a titled page of an area (`TitledPageBody`), at `h4` size either way.
 */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const order = useSectionOrder();
  return (
    <Card withBorder component="section" aria-labelledby={`${id}-heading`} data-testid={id}>
      <Title order={order} size="h4" id={`${id}-heading`} mb="md">
        {title}
      </Title>
      {children}
    </Card>
  );
}
