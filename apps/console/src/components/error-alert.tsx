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
