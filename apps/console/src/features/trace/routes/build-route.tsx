import { Anchor, Button, Group, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconClipboardCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DetailRows } from '../../../components/detail-rows';
import { ErrorAlert } from '../../../components/error-alert';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { Section } from '../../../components/section';
import { useDateTimeFormat } from '../../../lib/format';
import { useBuildList } from '../api/trace-lists';
import { BuildStateBadge, ShortId } from '../components/trace-badges';
import { TraceValuesPanel } from '../components/trace-values-panel';

/** One build (the parts of one job of one machine): its facts and its trace-parameter values. */
export function BuildRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const { buildId = '' } = useParams();
  const found = useBuildList({ pageNum: 1, numberOfItems: 1, buildId });
  const back = (
    <Anchor component={Link} to="/builds" size="sm" c="var(--manifold-link)" w="fit-content">
      <IconArrowLeft size={14} aria-hidden /> {t('trace.build.back')}
    </Anchor>
  );
  const build = found.data?.data[0];
  if (found.error || (found.data && !build)) {
    return (
      <Stack>
        <PageHead title={t('trace.builds.title')} />
        {back}
        <ErrorAlert>{found.error ? apiErrorMessage(t, found.error) : t('trace.build.notFound')}</ErrorAlert>
      </Stack>
    );
  }
  if (!build) return <PageLoader />;
  const time = (value: string | null) => (value ? <time dateTime={value}>{format(value)}</time> : '—');

  return (
    <Stack gap="lg">
      <PageHead title={t('trace.build.title', { job: build.jobId })} description={t('trace.build.description')} />
      {back}
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{t('trace.build.title', { job: build.jobId })}</Title>
          <Group gap="xs">
            <BuildStateBadge state={build.state} />
            <Text size="sm">{t('trace.part.jobQuantity', { quantity: build.quantity })}</Text>
          </Group>
        </Stack>
        {/* only an ended job's parts can be inspected (the server refuses a running, failed or cancelled one's) */}
        {build.state === 'ended' ? (
          <Button
            component={Link}
            to={`/quality/inspect?buildId=${build.buildId}`}
            leftSection={<IconClipboardCheck size={16} aria-hidden />}
          >
            {t('trace.build.inspect')}
          </Button>
        ) : null}
      </Group>
      <Section id="build-facts" title={t('trace.build.facts')}>
        <DetailRows
          rows={[
            [
              t('trace.builds.machine'),
              <Anchor component={Link} to={`/devices/${build.deviceId}`} c="var(--manifold-link)">
                <ShortId id={build.deviceId} />
              </Anchor>,
            ],
            [
              t('trace.builds.order'),
              <Anchor component={Link} to={`/orders/${build.orderId}`} c="var(--manifold-link)">
                <ShortId id={build.orderId} />
              </Anchor>,
            ],
            [t('trace.builds.startedAt'), time(build.startedAt)],
            [t('trace.builds.finishedAt'), time(build.finishedAt)],
          ]}
        />
      </Section>
      <TraceValuesPanel target={{ buildId: build.buildId }} deviceId={build.deviceId} />
    </Stack>
  );
}
