import { Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import { DataTable } from '../../../components/data-table';
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
      <DataTable
        compact
        testId="package-revisions"
        minWidth={760}
        caption={t('packages.builds.caption', { count: revisions.length })}
        columns={[
          t('packages.builds.number'),
          t('packages.builds.packageVersion'),
          t('packages.builds.date'),
          t('packages.builds.digest'),
          t('packages.builds.signedBy'),
        ]}
        empty={revisions.length === 0 ? t('packages.builds.empty') : null}
      >
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
      </DataTable>
    </Stack>
  );
}
