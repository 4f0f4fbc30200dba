import { Anchor, Button, Code, Group, Stack, Text, Timeline, Title } from '@mantine/core';
import type { TPartHistoryWithValues, TSvpValue, TTraceEventEntry, TTraceEventKind } from '@manifold/contract';
import {
  IconArrowLeft,
  IconCertificate,
  IconClipboardCheck,
  IconClipboardList,
  IconDownload,
  IconLicense,
  IconPackage,
  IconPrinter,
  IconRuler2,
  IconStack2,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { saveText } from '../../../lib/download';
import { useDateTimeFormat } from '../../../lib/format';
import { getMachineHistory, getPartEpcis, usePartHistory } from '../api/trace-lists';
import { BuildStateBadge, EventStatusBadge, QmsStateBadge, ShortId } from '../components/trace-badges';
import { TraceValuesPanel } from '../components/trace-values-panel';
import { useJsonExport } from '../components/use-json-export';
import { formatList } from '../../../lib/text-join';

/** The kinds that inspect a part (spec §4): the inspection step shows them. */
const inspectionKinds: readonly TTraceEventKind[] = [
  'qualityCheckPassed',
  'qualityCheckFailed',
  'scanningPassed',
  'scanningFailed',
];

function Step({
  step,
  title,
  time,
  link,
  children,
}: {
  step: string;
  title: string;
  time?: string | null | undefined;
  link?: { to: string; label: string } | undefined;
  children?: ReactNode;
}) {
  const format = useDateTimeFormat();
  return (
    <Stack gap={4} data-step={step}>
      <Title order={2} size="h5">
        {title}
      </Title>
      {time ? (
        <Text size="sm" c="dimmed">
          <time dateTime={time}>{format(time)}</time>
        </Text>
      ) : null}
      {children}
      {link ? (
        <Anchor component={Link} to={link.to} size="sm" c="var(--manifold-link)" w="fit-content">
          {link.label}
        </Anchor>
      ) : null}
    </Stack>
  );
}

function EventData({ event }: { event: TTraceEventEntry }) {
  const entries = Object.entries(event.event.data);
  if (entries.length === 0) return null;
  return (
    <Text size="sm" component="div">
      {entries.map(([name, value]) => (
        <div key={name}>
          <Code>{name}</Code> {value}
        </div>
      ))}
    </Text>
  );
}

/** A recorded trace-parameter value in a few words: the entry with its units, the file's name, or a machine data record. */
function valueWords(value: TSvpValue, t: (key: string, options?: Record<string, unknown>) => string): string {
  if (value.file) return value.file.fileName;
  if (value.dtlId) return t('trace.values.dtlRecord', { name: value.dtlId.slice(0, 8) });
  return `${value.value ?? ''}${value.units ? ` ${value.units}` : ''}`;
}

function partName(history: TPartHistoryWithValues): string {
  return history.part.serialNumber ?? history.part.id.slice(0, 8);
}

/** The history's steps in order: design revision → order → authorization → machine → job → events → inspection. */
function HistoryTimeline({ history }: { history: TPartHistoryWithValues }) {
  const { t } = useTranslation();
  const { design, order, authorization, machine, build, events, part } = history;
  const inspections = events.filter((event) => inspectionKinds.includes(event.event.kind));
  const eventsLink = { to: `/events?dsiId=${encodeURIComponent(part.dsiId)}`, label: t('trace.part.openEvents') };
  return (
    <Timeline active={7 + events.length} bulletSize={28} lineWidth={2} color="green" data-testid="part-timeline">
      <Timeline.Item bullet={<IconPackage size={16} aria-hidden />}>
        <Step
          step="design"
          title={t('trace.part.steps.design', { name: design.designName, version: design.dsiVersion })}
          time={design.builtAt}
          link={{ to: `/packages/${design.dsiId}`, label: t('trace.part.openDesign') }}
        >
          <Text size="sm">
            {t('trace.part.digest')} <Code>{design.digestValue.slice(0, 16)}</Code>
          </Text>
        </Step>
      </Timeline.Item>
      <Timeline.Item bullet={<IconClipboardList size={16} aria-hidden />}>
        <Step
          step="order"
          title={t('trace.part.steps.order', { number: order.orderNumber })}
          time={order.dateCreated}
          link={{ to: `/orders/${order.orderId}`, label: t('trace.part.openOrder') }}
        >
          <Text size="sm">
            {t('trace.part.orderFacts', {
              company: order.companyName,
              quantity: order.quantity,
              policy: order.breakagePolicy,
            })}
          </Text>
        </Step>
      </Timeline.Item>
      <Timeline.Item bullet={<IconLicense size={16} aria-hidden />}>
        <Step
          step="authorization"
          title={t('trace.part.steps.authorization', { id: authorization.authorizationId.slice(0, 8) })}
          time={authorization.dateCreated}
          link={{
            to: `/authorizations?authorizationId=${authorization.authorizationId}&orderId=${order.orderId}`,
            label: t('trace.part.openAuthorization'),
          }}
        >
          <Text size="sm">
            {t('trace.part.authorizationFacts', {
              state: t(`trace.authorizationStates.${authorization.state}`),
              quantity: authorization.quantity,
            })}
          </Text>
        </Step>
      </Timeline.Item>
      <Timeline.Item bullet={<IconPrinter size={16} aria-hidden />}>
        {machine ? (
          <Step
            step="machine"
            title={t('trace.part.steps.machine', { name: machine.name, serialNumber: machine.serialNumber })}
            time={machine.dateCreated}
            link={{ to: `/devices/${machine.deviceId}`, label: t('trace.part.openMachine') }}
          >
            <Text size="sm">{`${machine.manufacturer} ${machine.model}`}</Text>
          </Step>
        ) : (
          <Step step="machine" title={t('trace.part.machineGone')}>
            <ShortId id={part.deviceId} />
          </Step>
        )}
      </Timeline.Item>
      <Timeline.Item bullet={<IconStack2 size={16} aria-hidden />}>
        <Step
          step="job"
          title={t('trace.part.steps.job', { job: build.jobId })}
          time={build.startedAt}
          link={{ to: `/builds?dsiId=${encodeURIComponent(build.dsiId)}`, label: t('trace.part.openBuilds') }}
        >
          <Group gap="xs">
            <BuildStateBadge state={build.state} />
            <Text size="sm">{t('trace.part.jobQuantity', { quantity: build.quantity })}</Text>
          </Group>
        </Step>
      </Timeline.Item>
      {events.map((event) => (
        <Timeline.Item key={event.eventId} bullet={<IconCertificate size={16} aria-hidden />}>
          <Step step="event" title={t(`auditKinds.${event.event.kind}`)} time={event.event.occurredAt} link={eventsLink}>
            <Group gap="xs" data-event-kind={event.event.kind}>
              <EventStatusBadge event={event} />
              <Text size="sm">
                {/* an inspection's quality check is this server's own event, numbered on its chain, not a machine's */}
                {t(event.source === 'server' ? 'trace.part.serverEventNumber' : 'trace.part.eventNumber', {
                  sequence: event.sequence,
                })}
              </Text>
              {event.event.quantity !== null ? (
                <Text size="sm">{t('trace.part.eventQuantity', { quantity: event.event.quantity })}</Text>
              ) : null}
            </Group>
            <EventData event={event} />
          </Step>
        </Timeline.Item>
      ))}
      <Timeline.Item bullet={<IconRuler2 size={16} aria-hidden />}>
        <Step step="values" title={t('trace.part.steps.values')}>
          {history.traceValues.length === 0 ? (
            <Text size="sm">{t('trace.values.empty')}</Text>
          ) : (
            <Text size="sm" component="ul" m={0} pl="md">
              {history.traceValues.map((value) => (
                <li key={value.id} data-value-id={value.id}>
                  <Text span fw={500} size="sm">
                    {value.parameterName}
                  </Text>{' '}
                  {valueWords(value, t)}
                </li>
              ))}
            </Text>
          )}
          {history.traceValuesTruncated ? (
            <Text size="sm" c="dimmed">
              {t('trace.part.valuesTruncated', { count: history.traceValues.length })}
            </Text>
          ) : null}
        </Step>
      </Timeline.Item>
      <Timeline.Item bullet={<IconClipboardCheck size={16} aria-hidden />}>
        <Step step="inspection" title={t('trace.part.steps.inspection')}>
          <Group gap="xs">
            <QmsStateBadge state={part.partQmsState} />
            <Text size="sm">
              {inspections.length === 0
                ? t('trace.part.noInspection')
                : formatList(
                    t,
                    inspections.map((event) => t(`auditKinds.${event.event.kind}`)),
                  )}
            </Text>
          </Group>
        </Step>
      </Timeline.Item>
    </Timeline>
  );
}

/** A part's whole history on one timeline, each step linked to its screen, exported in one click. */
export function PartRoute() {
  const { t } = useTranslation();
  const { partId = '' } = useParams();
  const format = useDateTimeFormat();
  const history = usePartHistory(partId);
  const { save: saveFetched, error: exportError } = useJsonExport();
  const back = (
    <Anchor component={Link} to="/parts" size="sm" c="var(--manifold-link)" w="fit-content">
      <IconArrowLeft size={14} aria-hidden /> {t('trace.part.back')}
    </Anchor>
  );

  if (history.error) {
    return (
      <Stack>
        <PageHead title={t('trace.parts.title')} />
        {back}
        <ErrorAlert>{apiErrorMessage(t, history.error)}</ErrorAlert>
      </Stack>
    );
  }
  if (!history.data) return <PageLoader />;
  const data = history.data;
  const name = partName(data);

  return (
    <Stack gap="lg">
      <PageHead title={t('trace.part.title', { name })} description={t('trace.part.description')} />
      {back}
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{t('trace.part.title', { name })}</Title>
          <Group gap="xs">
            <QmsStateBadge state={data.part.partQmsState} />
            <Text size="sm" c="dimmed">
              {t('trace.part.recorded')} <time dateTime={data.part.dateCreated}>{format(data.part.dateCreated)}</time>
            </Text>
          </Group>
        </Stack>
        <Group>
          <Button
            leftSection={<IconDownload size={16} aria-hidden />}
            onClick={() => saveText(JSON.stringify(data, null, 2), `part-${data.part.id}-history.json`, 'application/json')}
          >
            {t('trace.part.export')}
          </Button>
          <Button
            variant="default"
            leftSection={<IconDownload size={16} aria-hidden />}
            onClick={() =>
              void saveFetched(() => getPartEpcis(data.part.id), `part-${data.part.id}.epcis.jsonld`, 'application/ld+json')
            }
          >
            {t('trace.part.exportEpcis')}
          </Button>
          <Button
            variant="default"
            leftSection={<IconDownload size={16} aria-hidden />}
            onClick={() =>
              void saveFetched(
                () => getMachineHistory(data.part.deviceId),
                `machine-${data.part.deviceId}-events.json`,
                'application/json',
              )
            }
          >
            {t('trace.part.exportMachine')}
          </Button>
        </Group>
      </Group>
      {exportError ? <ErrorAlert>{exportError}</ErrorAlert> : null}
      {data.eventsTruncated ? <Text c="dimmed">{t('trace.part.truncated', { count: data.events.length })}</Text> : null}
      <HistoryTimeline history={data} />
      <TraceValuesPanel target={{ partId: data.part.id, buildId: data.build.buildId }} deviceId={data.part.deviceId} />
    </Stack>
  );
}
