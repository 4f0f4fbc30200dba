import { Badge } from '@mantine/core';
import type { TRegistrationState } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { stateText } from '../../../app/theme';

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
    <Badge variant="light" color={color} c={stateText(color)} data-state={state}>
      {t(`network.states.${state}`)}
    </Badge>
  );
}
