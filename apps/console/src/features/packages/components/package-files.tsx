import { Button, Code, FileButton, Group, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import type { TClassification, TPackageFile } from '@manifold/contract';
import { IconDownload, IconTrash, IconUpload } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, namedErrorMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { formatBytes, useDateTimeFormat } from '../../../lib/format';
import { uploadTray } from '../../../lib/upload-tray';
import { useDeletePackageFile } from '../api/delete-package-file';
import { useDownloadPackageFile } from '../api/download-package-file';
import { packageQueryKey } from '../api/get-package';
import { useSetFilePrivacy } from '../api/set-file-privacy';
import { uploadPackageFile } from '../api/upload-package-file';
import { ClassificationBadge, ClassificationSelect } from '../../../components/classification';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { IconAction } from '../../../components/icon-action';
import { ErrorAlert } from '../../../components/error-alert';

export interface PackageFilesProps {
  dsiId: string;
  files: readonly TPackageFile[];
  canEdit: boolean;
}

/** The package's design files: upload through the tray, public/private switch, download, delete. */
export function PackageFiles({ dsiId, files, canEdit }: PackageFilesProps) {
  const { t, i18n } = useTranslation();
  const confirm = useConfirm();
  const format = useDateTimeFormat();
  const queryClient = useQueryClient();
  const [uploadPublic, setUploadPublic] = useState(false);
  const [uploadLabel, setUploadLabel] = useState<TClassification | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [uploadError, setUploadError] = useState<string | null>(null);
  const privacy = useSetFilePrivacy();
  const remove = useDeletePackageFile();
  const download = useDownloadPackageFile();

  const fileError = (fileId: string, error: unknown) =>
    setErrors((current) => ({ ...current, [fileId]: apiErrorMessage(t, error) }));
  const clearError = (fileId: string) =>
    setErrors((current) => {
      const { [fileId]: _removed, ...rest } = current;
      return rest;
    });

  const upload = (chosen: File[]) => {
    if (chosen.length === 0) return;
    setUploadError(null);
    const isPublic = uploadPublic;
    const label = uploadLabel;
    uploadTray.addFiles(chosen, {
      uploadType: 'package-file',
      upload: async (file, context) => {
        try {
          return await uploadPackageFile(dsiId, isPublic, label, file, context);
        } catch (error) {
          setUploadError(namedErrorMessage(t, file.name, error));
          throw error;
        }
      },
      finish: (file) => {
        alerts.success(t('packages.files.uploaded', { name: file.fileName }));
        void queryClient.invalidateQueries({ queryKey: packageQueryKey(dsiId) });
      },
    });
  };

  const confirmDelete = (file: TPackageFile) => {
    confirm({
      title: t('packages.files.deleteTitle'),
      message: t('packages.files.deleteConfirm', { name: file.fileName }),
      onConfirm: () => {
        clearError(file.fileId);
        remove.mutate(
          { fileId: file.fileId, dsiId },
          {
            onSuccess: () => alerts.success(t('packages.files.deleted', { name: file.fileName })),
            onError: (error) => fileError(file.fileId, error),
          },
        );
      },
    });
  };

  return (
    <Stack>
      {canEdit ? (
        <Group align="center">
          <FileButton onChange={upload} multiple>
            {(props) => (
              <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
                {t('packages.files.upload')}
              </Button>
            )}
          </FileButton>
          <Switch
            label={t('packages.files.uploadPublic')}
            checked={uploadPublic}
            onChange={(event) => setUploadPublic(event.currentTarget.checked)}
          />
          <ClassificationSelect width={200} value={uploadLabel} onChange={setUploadLabel} />
        </Group>
      ) : null}
      <Text size="xs" c="dimmed">
        {t('packages.files.privateHint')}
      </Text>
      {uploadError ? <ErrorAlert>{uploadError}</ErrorAlert> : null}
      <DataTable
        compact
        testId="package-files"
        minWidth={760}
        caption={t('packages.files.caption', { count: files.length })}
        columns={[
          t('packages.files.name'),
          t('packages.files.size'),
          t('packages.files.sha256'),
          t('packages.files.added'),
          t('packages.files.public'),
          t('common.actions'),
        ]}
        empty={files.length === 0 ? t('packages.files.empty') : null}
      >
        {files.map((file) => (
          <Table.Tr key={file.fileId} data-file-name={file.fileName}>
            <Table.Td>
              <Stack gap={2}>
                <Group gap={6} wrap="nowrap">
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {file.fileName}
                  </Text>
                  <ClassificationBadge label={file.classification} />
                </Group>
                {errors[file.fileId] ? (
                  <Text size="xs" c="var(--manifold-danger)" role="alert">
                    {errors[file.fileId]}
                  </Text>
                ) : null}
              </Stack>
            </Table.Td>
            <Table.Td>{formatBytes(file.size, i18n.language)}</Table.Td>
            <Table.Td>
              <Tooltip label={file.sha256}>
                <Code>{file.sha256.slice(0, 12)}…</Code>
              </Tooltip>
            </Table.Td>
            <Table.Td>
              <time dateTime={file.dateCreated}>{format(file.dateCreated)}</time>
            </Table.Td>
            <Table.Td>
              <Switch
                checked={file.isPublic}
                disabled={!canEdit || (privacy.isPending && privacy.variables.fileId === file.fileId)}
                aria-label={t('packages.files.publicNamed', { name: file.fileName })}
                label={file.isPublic ? t('packages.files.isPublic') : t('packages.files.isPrivate')}
                onChange={(event) => {
                  clearError(file.fileId);
                  privacy.mutate(
                    { fileId: file.fileId, isPublic: event.currentTarget.checked },
                    { onError: (error) => fileError(file.fileId, error) },
                  );
                }}
              />
            </Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                {/* the server opens a private file to administrators only (the editors here) */}
                {file.isPublic || canEdit ? (
                  <IconAction
                    tooltip={t('packages.files.download')}
                    label={t('packages.files.downloadNamed', { name: file.fileName })}
                    icon={IconDownload}
                    loading={download.isPending && download.variables.fileId === file.fileId}
                    onClick={() => {
                      clearError(file.fileId);
                      download.mutate(file, { onError: (error) => fileError(file.fileId, error) });
                    }}
                  />
                ) : null}
                {canEdit ? (
                  <IconAction
                    tooltip={t('common.delete')}
                    label={t('packages.files.deleteNamed', { name: file.fileName })}
                    icon={IconTrash}
                    color="red"
                    onClick={() => confirmDelete(file)}
                  />
                ) : null}
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Stack>
  );
}
