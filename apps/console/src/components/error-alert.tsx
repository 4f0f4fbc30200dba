import { Alert, Text, type AlertProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A problem shown in place (a refused request, a failed load): red, announced to screen readers. */
export function ErrorAlert({
  children,
  ...props
}: Omit<AlertProps, 'color' | 'variant' | 'role' | 'children'> & { children: ReactNode }) {
  return (
    <Alert color="red" variant="light" role="alert" {...props}>
      <Text size="sm">{children}</Text>
    </Alert>
  );
}

/** A problem with a heading and details below it (a list of problems, a way out): red, announced to screen readers. */
export function TitledErrorAlert({
  title,
  children,
  ...props
}: Omit<AlertProps, 'color' | 'variant' | 'role' | 'title' | 'children'> & { title: string; children: ReactNode }) {
  return (
    <Alert
      color="red"
      variant="light"
      role="alert"
      title={
        <Text span fw={700} size="sm" c="var(--manifold-danger)">
          {title}
        </Text>
      }
      {...props}
    >
      {children}
    </Alert>
  );
}
