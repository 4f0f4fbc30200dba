import { Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import type { TDsiEntry } from '@manifold/contract';
import { IconHammer } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { useBuildPackage } from '../api/build-package';
import { ErrorAlert } from '../../../components/error-alert';

export interface PackageBuildsProps {
  dsiId: string;
  revisions: readonly TDsiEntry[];
  canEdit: boolean;
}

/** Builds: freeze the package into a signed revision; the list of revisions with their digests. */
export function PackageBuilds({ dsiId, revisions, canEdit }: PackageBuildsProps) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const build = useBuildPackage();
  const [error, setError] = useState<string | null>(null);
  const sorted = [...revisions].sort((a, b) => b.dsiVersion - a.dsiVersion);

  return (
    <Stack>
      <Text size="sm">{t('packages.builds.intro')}</Text>
      {canEdit ? (
        <Group>
          <Button
            leftSection={<IconHammer size={16} aria-hidden />}
            loading={build.isPending}
            onClick={() => {
              setError(null);
              build.mutate(
                { dsiId },
                {
                  onSuccess: (entry) => alerts.success(t('packages.builds.built', { number: entry.dsiVersion })),
                  onError: (caught) => setError(apiErrorMessage(t, caught)),
                },
              );
            }}
          >
            {t('packages.builds.build')}
          </Button>
        </Group>
      ) : null}
      {error ? <ErrorAlert data-testid="build-error">{error}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={760}>
        <Table striped data-testid="package-revisions">
          <Table.Caption>{t('packages.builds.caption', { total: revisions.length })}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('packages.builds.number')}</Table.Th>
              <Table.Th scope="col">{t('packages.builds.packageVersion')}</Table.Th>
              <Table.Th scope="col">{t('packages.builds.date')}</Table.Th>
              <Table.Th scope="col">{t('packages.builds.digest')}</Table.Th>
              <Table.Th scope="col">{t('packages.builds.signedBy')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sorted.map((revision) => (
              <Table.Tr key={revision.revisionId} data-dsi-version={revision.dsiVersion}>
                <Table.Td>{revision.dsiVersion}</Table.Td>
                <Table.Td>{revision.version}</Table.Td>
                <Table.Td>
                  <time dateTime={revision.dateCreated}>{format(revision.dateCreated)}</time>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed" component="span">
                    {revision.digestMethod}{' '}
                  </Text>
                  <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }} data-testid="revision-digest">
                    {revision.digestValue}
                  </Code>
                </Table.Td>
                <Table.Td>
                  {revision.publicKeySN ? (
                    <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>{revision.publicKeySN}</Code>
                  ) : (
                    '—'
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
            {revisions.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text c="dimmed" ta="center" size="sm">
                    {t('packages.builds.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
