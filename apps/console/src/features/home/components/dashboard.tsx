import { Anchor, Badge, Card, Group, List, SimpleGrid, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import type { TDashboard, TFirstRunStep } from '@manifold/contract';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { CategoryChart } from '../../../components/category-chart';
import { ChartSection, percent } from '../../../components/chart-section';
import { DataTable } from '../../../components/data-table';
import { Section } from '../../../components/section';
import { isScreenOpen, useConsoleConfig } from '../../../lib/console-config';
import { useDateTimeFormat } from '../../../lib/format';

/** Where each first-run step is done. */
const firstRunLinks: Record<TFirstRunStep, string> = {
  keys: '/setup',
  certificates: '/setup',
  storage: '/storage',
  peers: '/network',
  machines: '/devices',
};

/** One figure: its number, what it counts, and the screen it comes from. */
function Figure({ id, value, label, to }: { id: string; value: string | number; label: string; to: string }) {
  return (
    <Card withBorder padding="md" component="section" aria-labelledby={`${id}-label`}>
      <Anchor component={Link} to={to} c="var(--manifold-link)" underline="hover" data-testid={id}>
        <Text fz={28} fw={700} lh={1.1} data-figure={id}>
          {value}
        </Text>
        <Text size="sm" id={`${id}-label`}>
          {label}
        </Text>
      </Anchor>
    </Card>
  );
}

/** What an empty instance still needs, from the setup state; each step links to where it is done. */
export function FirstRun({ firstRun }: { firstRun: NonNullable<TDashboard['firstRun']> }) {
  const { t } = useTranslation();
  if (firstRun.complete) return null;
  return (
    <Section id="first-run" title={t('dashboard.firstRun.title')}>
      <Text size="sm" mb="sm">
        {t('dashboard.firstRun.intro')}
      </Text>
      <List spacing="sm" center>
        {firstRun.steps.map(({ step, done }) => (
          <List.Item
            key={step}
            data-step={step}
            data-done={done}
            icon={
              <ThemeIcon color={done ? 'green.8' : 'gray.6'} size={22} radius="xl" variant="light">
                {done ? <IconCircleCheck size={16} aria-hidden /> : <IconCircleDashed size={16} aria-hidden />}
              </ThemeIcon>
            }
          >
            <Group gap="xs" wrap="nowrap">
              <Anchor component={Link} to={firstRunLinks[step]} c="var(--manifold-link)">
                {t(`dashboard.firstRun.steps.${step}.label`)}
              </Anchor>
              <Badge
                size="sm"
                variant="light"
                color={done ? 'green' : 'gray'}
                c={done ? 'var(--manifold-link)' : 'var(--manifold-text)'}
              >
                {done ? t('dashboard.firstRun.done') : t('dashboard.firstRun.todo')}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed">
              {t(`dashboard.firstRun.steps.${step}.needs`)}
            </Text>
          </List.Item>
        ))}
      </List>
    </Section>
  );
}

function PartsChart({ parts }: { parts: TDashboard['parts'] }) {
  const { t } = useTranslation();
  const title = t('dashboard.parts.title', { count: parts.days.length });
  return (
    <ChartSection
      id="dashboard-parts"
      title={title}
      summary={t('dashboard.parts.summary', {
        count: parts.made,
        passed: parts.passed,
        failed: parts.failed,
        rate: percent(parts.passRate),
      })}
      chart={
        <CategoryChart
          kind="bars"
          h={200}
          data={parts.days.map((day) => ({ ...day, day: day.day.slice(5) }))}
          dataKey="day"
          // counts of parts: whole numbers on the axis
          integers
          withLegend
          series={[
            { name: 'made', label: t('dashboard.parts.made'), color: 'blue.8' },
            { name: 'passed', label: t('quality.passed'), color: 'teal.7' },
            { name: 'failed', label: t('quality.failed'), color: 'red.8' },
          ]}
        />
      }
      columns={[t('quality.day'), t('dashboard.parts.made'), t('quality.passed'), t('quality.failed'), t('quality.passRate')]}
      rows={parts.days.map((day) => [
        day.day,
        day.made,
        day.passed,
        day.failed,
        percent(day.passed + day.failed === 0 ? null : day.passed / (day.passed + day.failed)),
      ])}
      empty={t('dashboard.parts.empty')}
    />
  );
}

function RecentEvents({ events }: { events: TDashboard['recentEvents'] }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  return (
    <Section id="dashboard-events" title={t('dashboard.events.title')}>
      <DataTable
        testId="dashboard-events-table"
        caption={t('dashboard.events.caption')}
        minWidth={420}
        compact
        columns={[t('dashboard.events.kind'), t('dashboard.events.machine'), t('dashboard.events.received')]}
        empty={events.length === 0 ? t('dashboard.events.empty') : null}
      >
        {events.map((event) => (
          <Table.Tr key={event.eventId}>
            <Table.Td>{t(`auditKinds.${event.kind}`, { defaultValue: event.kind })}</Table.Td>
            <Table.Td>
              {event.deviceName ? (
                <Anchor component={Link} to={`/devices/${event.deviceId}`} c="var(--manifold-link)" size="sm">
                  {event.deviceName}
                </Anchor>
              ) : (
                t('dashboard.events.server')
              )}
            </Table.Td>
            <Table.Td>
              <time dateTime={event.receivedAt}>{format(event.receivedAt)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <Anchor component={Link} to="/events" c="var(--manifold-link)" size="sm" mt="xs" display="inline-block">
        {t('dashboard.events.all')}
      </Anchor>
    </Section>
  );
}

function Peers({ peers }: { peers: NonNullable<TDashboard['peers']> }) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  return (
    <Section id="dashboard-peers" title={t('dashboard.peers.title', { total: peers.total })}>
      <DataTable
        testId="dashboard-peers-table"
        caption={t('dashboard.peers.caption')}
        minWidth={560}
        compact
        columns={[
          t('dashboard.peers.name'),
          t('dashboard.peers.state'),
          t('dashboard.peers.pending'),
          t('dashboard.peers.failed'),
          t('dashboard.peers.delivered'),
          t('dashboard.peers.lastDelivered'),
        ]}
        empty={peers.list.length === 0 ? t('dashboard.peers.empty') : null}
      >
        {peers.list.map((peer) => (
          <Table.Tr key={peer.id} data-peer={peer.name}>
            <Table.Td>
              <Text size="sm" fw={500}>
                {peer.name}
              </Text>
              <Text size="xs" c="dimmed">
                {t(`dashboard.peers.types.${peer.type}`, { defaultValue: peer.type })}
              </Text>
            </Table.Td>
            <Table.Td>{t(`dashboard.peers.states.${peer.registrationState}`, { defaultValue: peer.registrationState })}</Table.Td>
            <Table.Td>
              <Anchor component={Link} to="/outbox" c="var(--manifold-link)" size="sm">
                {peer.pending}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor
                component={Link}
                to="/outbox"
                c={peer.failed > 0 ? 'var(--manifold-danger)' : 'var(--manifold-link)'}
                size="sm"
              >
                {peer.failed}
              </Anchor>
            </Table.Td>
            <Table.Td>{peer.delivered}</Table.Td>
            <Table.Td>
              {peer.lastDeliveredAt ? <time dateTime={peer.lastDeliveredAt}>{format(peer.lastDeliveredAt)}</time> : '—'}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}

/**
 * The home dashboard (docs/dashboard.md): live orders and what they can still authorize,
 * authorizations waiting to be sent, machines by state, jobs in progress, parts made and their
 * pass rate over the last days, recent events, and for administrators the peers' deliveries and
 * the first-run checklist. Every figure links to its screen.
 */
export function Dashboard({ data }: { data: TDashboard }) {
  const { t } = useTranslation();
  const config = useConsoleConfig();
  const format = useDateTimeFormat();
  const qualityOpen = isScreenOpen(config, 'POST /ui/qms/parts/search');
  return (
    <Stack gap="lg" data-testid="dashboard">
      {data.firstRun ? <FirstRun firstRun={data.firstRun} /> : null}
      <Group justify="space-between" align="baseline">
        <Title order={2} size="h3">
          {t('dashboard.title')}
        </Title>
        <Text size="xs" c="dimmed">
          {t('dashboard.updated')} <time dateTime={data.generatedAt}>{format(data.generatedAt)}</time>
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
        <Figure id="figure-live-orders" value={data.orders.live} label={t('dashboard.figures.liveOrders')} to="/orders" />
        <Figure
          id="figure-quantity-left"
          value={data.orders.quantityLeft}
          label={t('dashboard.figures.quantityLeft')}
          to="/orders"
        />
        <Figure
          id="figure-waiting"
          value={data.authorizations.waitingToSend}
          label={t('dashboard.figures.waitingToSend')}
          to="/authorizations"
        />
        <Figure id="figure-jobs" value={data.jobs.inProgress} label={t('dashboard.figures.jobsInProgress')} to="/builds" />
        <Figure
          id="figure-pass-rate"
          value={percent(data.parts.passRate)}
          label={t('dashboard.figures.passRate', { count: data.parts.days.length })}
          to={qualityOpen ? '/quality' : '/parts'}
        />
      </SimpleGrid>
      <Section id="dashboard-machines" title={t('dashboard.machines.title')}>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          {(['printing', 'idle', 'offline', 'awaitingApproval'] as const).map((state) => (
            <Figure
              key={state}
              id={`figure-machines-${state}`}
              value={data.machines[state]}
              label={t(`dashboard.machines.${state}`)}
              to="/devices"
            />
          ))}
        </SimpleGrid>
      </Section>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <PartsChart parts={data.parts} />
        <RecentEvents events={data.recentEvents} />
      </SimpleGrid>
      {data.peers ? <Peers peers={data.peers} /> : null}
    </Stack>
  );
}
