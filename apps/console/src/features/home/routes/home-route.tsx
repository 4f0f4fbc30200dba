import { Alert, Anchor, Card, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { displayName } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { PageHead } from '../../../components/page-head';
import { useConsoleConfig } from '../../../lib/console-config';
import { sessionQueryOptions } from '../../../lib/session';
import { useDashboard } from '../api/get-dashboard';
import { useVersion } from '../api/get-version';
import { Dashboard } from '../components/dashboard';

/** The start screen: who is signed in, the plant at a glance (the dashboard) and which server versions answer. */
export function HomeRoute() {
  const { t } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const version = useVersion();
  const profile = session.data?.userProfile;
  const config = useConsoleConfig();
  const dashboard = useDashboard();

  return (
    <Stack gap="lg">
      <PageHead title={t('home.title')} description={t('home.description')} />
      <div>
        <Title order={1}>{profile ? t('home.welcome', { name: displayName(profile) }) : t('home.title')}</Title>
        <Text c="dimmed">{t('home.intro', { siteName: config.siteName })}</Text>
      </div>
      {dashboard.error ? <ErrorAlert>{t('dashboard.failed', { reason: apiErrorMessage(t, dashboard.error) })}</ErrorAlert> : null}
      {dashboard.data ? <Dashboard data={dashboard.data} /> : dashboard.isPending ? <Skeleton h={240} /> : null}
      <Card withBorder component="section" aria-labelledby="home-versions" maw={720}>
        <Title order={2} size="h4" id="home-versions" mb="sm">
          {t('home.versions')}
        </Title>
        {version.error ? (
          <Alert color="red" variant="light">
            <Text size="sm">{apiErrorMessage(t, version.error)}</Text>
          </Alert>
        ) : (
          <Table variant="vertical" withTableBorder={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={200}>{t('home.manageVersion')}</Table.Th>
                <Table.Td>{version.data ? version.data.manageVersion : <Skeleton h={16} w={120} />}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('home.traceVersion')}</Table.Th>
                <Table.Td>{version.data ? (version.data.traceVersion ?? '—') : <Skeleton h={16} w={120} />}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('home.consoleVersion')}</Table.Th>
                <Table.Td>{config.version || '—'}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <Group>
        <Anchor component={Link} to="/profile">
          {t('home.editProfile')}
        </Anchor>
      </Group>
    </Stack>
  );
}
