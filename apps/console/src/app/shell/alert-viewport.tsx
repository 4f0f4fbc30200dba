import { Notification, Stack, Transition } from '@mantine/core';
import { useEffect, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import {
  alertDefaults,
  alertPositions,
  alerts as defaultQueue,
  type Alert,
  type AlertPosition,
  type AlertQueue,
  type AlertType,
} from '../../lib/alerts';
import { useStore } from '../../lib/store';

const typeColors: Record<AlertType, string> = { info: 'blue', success: 'green', error: 'red' };

function positionStyle(position: AlertPosition): CSSProperties {
  const [vertical, horizontal] = position.split('-') as [string, string];
  const offset = alertDefaults.offset;
  const style: CSSProperties = { position: 'fixed', zIndex: alertDefaults.zIndex, width: 'min(420px, calc(100vw - 20px))' };
  const transforms: string[] = [];
  if (vertical === 'top') style.top = offset;
  else if (vertical === 'bottom') style.bottom = offset;
  else {
    style.top = '50%';
    transforms.push('translateY(-50%)');
  }
  if (horizontal === 'left') style.left = offset;
  else if (horizontal === 'right') style.right = offset;
  else {
    style.left = '50%';
    transforms.push('translateX(-50%)');
  }
  if (transforms.length > 0) style.transform = transforms.join(' ');
  return style;
}

function AlertItem({ alert }: { alert: Alert }) {
  const { t } = useTranslation();
  const [entered, setEntered] = useState(false);
  useEffect(() => setEntered(true), []);
  return (
    <Transition
      mounted={entered && alert.visible}
      transition={alert.options.transition}
      duration={alertDefaults.transitionDuration}
    >
      {(styles) => (
        <Notification
          style={styles}
          color={typeColors[alert.options.type]}
          onClose={alert.close}
          closeButtonProps={{ 'aria-label': t('alerts.close') }}
          withBorder
          data-alert-type={alert.options.type}
        >
          {alert.message}
        </Notification>
      )}
    </Transition>
  );
}

/** Renders the alert queue (spec §4) in its nine positions. */
export function AlertViewport({ queue = defaultQueue }: { queue?: AlertQueue }) {
  const items = useStore(queue.store);
  return (
    <>
      {alertPositions.map((position) => {
        const here = items.filter((alert) => alert.options.position === position);
        if (here.length === 0) return null;
        return (
          <Stack key={position} gap="xs" style={positionStyle(position)} data-alert-position={position}>
            {here.map((alert) => (
              <AlertItem key={alert.id} alert={alert} />
            ))}
          </Stack>
        );
      })}
    </>
  );
}
