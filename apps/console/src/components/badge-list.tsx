import { Badge, Group } from '@mantine/core';

/** Short values of one table cell (members, constraints) as quiet badges. */
export function BadgeList({ items }: { items: readonly { key: string; label: string }[] }) {
  return (
    <Group gap={4}>
      {items.map((item) => (
        <Badge key={item.key} variant="light" color="gray" c="var(--manifold-text)" tt="none">
          {item.label}
        </Badge>
      ))}
    </Group>
  );
}
