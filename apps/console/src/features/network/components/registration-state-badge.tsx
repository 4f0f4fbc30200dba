import { Badge } from '@mantine/core';
import type { TRegistrationState } from '@manifold/contract';
import { useTranslation } from 'react-i18next';

const stateColors: Record<TRegistrationState, string> = {
  Pending: 'yellow',
  Approved: 'green',
  Rejected: 'red',
  Suspended: 'orange',
  Cancelled: 'gray',
};

/** A peer registration's state (spec §4). */
export function RegistrationStateBadge({ state }: { state: TRegistrationState }) {
  const { t } = useTranslation();
  const color = stateColors[state];
  return (
    <Badge
      variant="light"
      color={color}
      c={color === 'green' ? 'var(--manifold-success)' : 'var(--manifold-text)'}
      data-state={state}
    >
      {t(`network.states.${state}`)}
    </Badge>
  );
}
