import { Badge, Group } from '@mantine/core';
import type { TOrder } from '@manifold/contract';
import { useTranslation } from 'react-i18next';

/** Live, revoked, expired, archived. */
export function OrderStateBadges({ order }: { order: Pick<TOrder, 'revoked' | 'archive' | 'expiration'> }) {
  const { t } = useTranslation();
  const expired = order.expiration !== null && Date.parse(order.expiration) <= Date.now();
  return (
    <Group gap={4} wrap="nowrap">
      {order.revoked ? (
        <Badge variant="light" color="red" c="var(--manifold-danger)" data-state="revoked">
          {t('orders.states.revoked')}
        </Badge>
      ) : expired ? (
        <Badge variant="light" color="orange" c="var(--manifold-text)" data-state="expired">
          {t('orders.states.expired')}
        </Badge>
      ) : (
        <Badge variant="light" color="green" c="var(--manifold-success)" data-state="live">
          {t('orders.states.live')}
        </Badge>
      )}
      {order.archive ? (
        <Badge variant="outline" color="gray" c="var(--manifold-text)" data-state="archived">
          {t('orders.states.archived')}
        </Badge>
      ) : null}
    </Group>
  );
}
