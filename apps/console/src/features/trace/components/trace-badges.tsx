import { Badge, Code } from '@mantine/core';
import type { TBuild, TPart, TTraceEventEntry } from '@manifold/contract';
import { useTranslation } from 'react-i18next';

const good = { color: 'green', c: 'var(--manifold-success)' } as const;
const bad = { color: 'red', c: 'var(--manifold-danger)' } as const;
const neutral = { color: 'gray', c: 'var(--manifold-text)' } as const;
const pending = { color: 'yellow', c: 'var(--manifold-text)' } as const;

const buildColors: Record<TBuild['state'], { color: string; c: string }> = {
  started: pending,
  paused: neutral,
  ended: good,
  failed: bad,
  cancelled: neutral,
};

const qmsColors: Record<TPart['partQmsState'], { color: string; c: string }> = {
  NO_QMS_STEP: good,
  MANUFACTURED: pending,
  CANCELED: neutral,
  FAILURE: bad,
};

/** An event's check: its signature verified and its machine's chain continued, or the break found. */
export function EventStatusBadge({ event }: { event: Pick<TTraceEventEntry, 'status' | 'chainFinding'> }) {
  const { t } = useTranslation();
  const colors = event.status === 'verified' ? good : bad;
  return (
    <Badge variant="light" color={colors.color} c={colors.c} data-status={event.status}>
      {event.chainFinding ? t(`trace.chainFindings.${event.chainFinding}`) : t('trace.eventStatus.verified')}
    </Badge>
  );
}

export function BuildStateBadge({ state }: { state: TBuild['state'] }) {
  const { t } = useTranslation();
  const colors = buildColors[state];
  return (
    <Badge variant="light" color={colors.color} c={colors.c} data-state={state}>
      {t(`trace.buildStates.${state}`)}
    </Badge>
  );
}

export function QmsStateBadge({ state }: { state: TPart['partQmsState'] }) {
  const { t } = useTranslation();
  const colors = qmsColors[state];
  return (
    <Badge variant="light" color={colors.color} c={colors.c} data-state={state}>
      {t(`trace.qmsStates.${state}`)}
    </Badge>
  );
}

/** A long identifier shown by its first eight characters; the whole one on hover. */
export function ShortId({ id, title }: { id: string; title?: string }) {
  return (
    <Code title={title ?? id} data-id={id}>
      {id.slice(0, 8)}
    </Code>
  );
}
