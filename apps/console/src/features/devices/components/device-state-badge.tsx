import { Badge, Group } from '@mantine/core';
import type { TDevice } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { stateText } from '../../../app/theme';

const stateColors: Record<TDevice['registrationState'], string> = {
  Pending: 'yellow',
  Approved: 'green',
  Rejected: 'red',
  Suspended: 'orange',
  Cancelled: 'gray',
};

/** The registration state, and whether the machine is disabled. */
export function DeviceStateBadge({ device }: { device: Pick<TDevice, 'registrationState' | 'disabled'> }) {
  const { t } = useTranslation();
  const color = stateColors[device.registrationState];
  return (
    <Group gap={4} wrap="nowrap">
      <Badge variant="light" color={color} c={stateText(color)} data-state={device.registrationState}>
        {t(`devices.states.${device.registrationState}`)}
      </Badge>
      {device.disabled ? (
        <Badge variant="outline" color="gray" c="var(--manifold-text)" data-disabled="true">
          {t('devices.disabled')}
        </Badge>
      ) : null}
    </Group>
  );
}
