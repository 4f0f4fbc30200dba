import { Badge, Table, Text } from '@mantine/core';
import type { TOutboxState } from '@manifold/contract';
import { stateText } from '../../../app/theme';
import { useDateTimeFormat } from '../../../lib/format';

const stateColors: Record<TOutboxState, string> = { pending: 'yellow', failed: 'red', delivered: 'green', cancelled: 'gray' };

/** A delivery's state (an outbox message's, a queued event's) as a badge named `label`. */
export function DeliveryStateBadge({ state, label }: { state: TOutboxState; label: string }) {
  return (
    <Badge variant="light" color={stateColors[state]} c={stateText(stateColors[state])}>
      {label}
    </Badge>
  );
}

/** A delivery's attempts, next attempt (when one is due) and last error: three cells of its row. */
export function DeliveryCells({
  attempts,
  nextAttemptAt,
  lastError,
}: {
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
}) {
  const format = useDateTimeFormat();
  return (
    <>
      <Table.Td>{attempts}</Table.Td>
      <Table.Td>{nextAttemptAt ? <time dateTime={nextAttemptAt}>{format(nextAttemptAt)}</time> : null}</Table.Td>
      <Table.Td>
        <Text size="sm" c="var(--manifold-danger)" style={{ wordBreak: 'break-word' }}>
          {lastError}
        </Text>
      </Table.Td>
    </>
  );
}
