import { Button, Code, FileButton, Group, Stack, Table, Text } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, namedErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { pageCount } from '../../../lib/paging';
import { uploadTray } from '../../../lib/upload-tray';
import { uploadDesignPackage, useDasEntries } from '../api/get-das-entries';
import { filterField } from '../../../components/id-inputs';

const pageSize = 10;

/**
 * The design archive service: DSI entries (built, signed revisions and uploaded design packages),
 * paged, filtered by dsiId; design package files are uploaded through the upload tray.
 */
export function DasRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const queryClient = useQueryClient();
  const paging = usePagedSearch({ filters: ['dsiId'] });
  const { page, setPage } = paging;
  const { dsiId } = paging.filters;
  const [uploadError, setUploadError] = useState<string | null>(null);
  const resetFile = useRef<() => void>(null);
  const entries = useDasEntries({ pageNum: page, numberOfItems: pageSize, dsiId });
  usePageInRange(paging, entries);

  const upload = (file: File | null) => {
    if (!file) return;
    // the same file may be chosen again (after fixing it, or to see why it was refused)
    resetFile.current?.();
    setUploadError(null);
    uploadTray.addFiles([file], {
      uploadType: 'design-package',
      upload: async (chosen, context) => {
        try {
          return await uploadDesignPackage(chosen, context);
        } catch (error) {
          setUploadError(namedErrorMessage(t, chosen.name, error));
          throw error;
        }
      },
      finish: (entry) => {
        alerts.success(t('das.uploaded', { name: entry.designName, version: entry.dsiVersion }));
        void queryClient.invalidateQueries({ queryKey: ['das'] });
      },
    });
  };

  return (
    <Stack gap="lg">
      <ListHeader title={t('das.title')} description={t('das.description')} />
      <Group>
        <FileButton onChange={upload} accept="application/json,.json" resetRef={resetFile}>
          {(props) => (
            <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
              {t('das.upload')}
            </Button>
          )}
        </FileButton>
        <Text size="sm" c="dimmed">
          {t('das.uploadHint')}
        </Text>
      </Group>
      {uploadError ? <ErrorAlert>{uploadError}</ErrorAlert> : null}
      <TextFilterForm
        title={t('das.filter')}
        fields={[filterField('dsiId', t('das.columns.dsiId'))]}
        applied={{ dsiId }}
        onApply={(filters) => paging.setFilters({ dsiId: filters.dsiId })}
        applyLabel={t('das.apply')}
        clearLabel={t('das.clear')}
      />
      {entries.error ? <ErrorAlert>{apiErrorMessage(t, entries.error)}</ErrorAlert> : null}
      <DataTable
        testId="das-table"
        minWidth={900}
        busy={entries.isFetching}
        caption={t('das.caption', { count: entries.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('das.columns.designName'),
          t('das.columns.dsiId'),
          t('das.columns.dsiVersion'),
          t('das.columns.version'),
          t('das.columns.companyName'),
          t('das.columns.publicKeySN'),
          t('das.columns.dateCreated'),
        ]}
        empty={entries.data?.data.length === 0 ? t(paging.narrowed ? 'das.noMatch' : 'das.empty') : null}
      >
        {(entries.data?.data ?? []).map((entry) => (
          <Table.Tr key={entry.revisionId} data-dsi-id={entry.dsiId} data-dsi-version={entry.dsiVersion}>
            <Table.Td>
              <Text size="sm">{entry.designName}</Text>
              {entry.description ? (
                <Text size="xs" c="dimmed">
                  {entry.description}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>
              <Code>{entry.dsiId}</Code>
            </Table.Td>
            <Table.Td>{entry.dsiVersion}</Table.Td>
            <Table.Td>{entry.version}</Table.Td>
            <Table.Td>{entry.companyName || '—'}</Table.Td>
            <Table.Td>{entry.publicKeySN ?? '—'}</Table.Td>
            <Table.Td>
              <time dateTime={entry.dateCreated}>{format(entry.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(entries.data)} value={page} onChange={setPage} />
    </Stack>
  );
}
