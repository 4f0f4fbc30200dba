import '@mantine/dropzone/styles.css';
import { Anchor, Badge, Breadcrumbs, Button, FileButton, Grid, Group, Stack, Table, Text, Title } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import type { TSecureRepoNode } from '@manifold/contract';
import { IconDownload, IconFolder, IconFolderPlus, IconUpload } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { apiErrorMessage, namedErrorMessage } from '../../../components/api-error-message';
import { ClassificationBadge } from '../../../components/classification';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { IconAction } from '../../../components/icon-action';
import { ListPagination } from '../../../components/list-pagination';
import { PageHead } from '../../../components/page-head';
import { EditDeleteActions } from '../../../components/row-actions';
import { alerts } from '../../../lib/alerts';
import { formatBytes, useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { sessionQueryOptions } from '../../../lib/session';
import { uploadTray } from '../../../lib/upload-tray';
import { uploadSecureFile, useDeleteNode, useDownloadSecureFile } from '../api/change-secure-repo';
import { secureRepoKey, useGroupNames, useSecureRepoList } from '../api/get-secure-repo';
import { FolderTree } from '../components/folder-tree';
import { NodeForm, type NodeFormMode } from '../components/node-form';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 25;

/**
 * Secure files: the folder tree, breadcrumbs, the folder's folders and files a page at a time;
 * upload (button or drag and drop) through the upload tray, download, description, sharing with
 * groups, delete with confirmation. A USER sees the folders shared with their groups.
 */
export function SecureFilesRoute() {
  const { nodeId } = useParams();
  // a new folder starts on its first page
  return <SecureFolder key={nodeId ?? 'top'} nodeId={nodeId} />;
}

function SecureFolder({ nodeId }: { nodeId: string | undefined }) {
  const { t, i18n } = useTranslation();
  const confirm = useConfirm();
  const format = useDateTimeFormat();
  const queryClient = useQueryClient();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [form, setForm] = useState<NodeFormMode | null>(null);
  const [rowErrors, setRowErrors] = useState<Record<string, string>>({});
  const [uploadError, setUploadError] = useState<string | null>(null);
  const resetFiles = useRef<() => void>(null);
  const session = useQuery(sessionQueryOptions());
  const isAdmin = session.data?.userProfile.role === 'ADMIN';
  const list = useSecureRepoList({ ...(nodeId ? { nodeId } : {}), pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, list);
  const groupNames = useGroupNames();
  const remove = useDeleteNode();
  const download = useDownloadSecureFile();
  const current = list.data?.currentNode ?? null;
  const ancestors = list.data?.ancestors ?? [];
  const canCreate = nodeId !== undefined || isAdmin;
  const rowError = (id: string, error: unknown) => setRowErrors((errors) => ({ ...errors, [id]: apiErrorMessage(t, error) }));

  const upload = (files: File[]) => {
    if (!nodeId || files.length === 0) return;
    // the same files may be chosen again (after a refusal, or once a file of that name is gone)
    resetFiles.current?.();
    setUploadError(null);
    uploadTray.addFiles(files, {
      uploadType: 'secure-file',
      upload: async (file, context) => {
        try {
          return await uploadSecureFile(nodeId, file, context);
        } catch (error) {
          setUploadError(namedErrorMessage(t, file.name, error));
          throw error;
        }
      },
      finish: (node) => {
        alerts.success(t('secureFiles.uploaded', { name: node.folderName }));
        void queryClient.invalidateQueries({ queryKey: secureRepoKey });
      },
    });
  };

  const confirmDelete = (node: TSecureRepoNode) =>
    confirm({
      title: node.nodeType === 'folder' ? t('secureFiles.deleteFolderTitle') : t('secureFiles.deleteFileTitle'),
      message:
        node.nodeType === 'folder'
          ? t('secureFiles.deleteFolderConfirm', { name: node.folderName })
          : t('secureFiles.deleteFileConfirm', { name: node.folderName }),
      onConfirm: () =>
        remove.mutate(
          { nodeId: node.nodeId },
          {
            onSuccess: () => alerts.success(t('secureFiles.deleted', { name: node.folderName })),
            onError: (error) => rowError(node.nodeId, error),
          },
        ),
    });

  const groupBadges = (groups: readonly number[]) =>
    groups.length === 0 ? (
      <Text size="sm" c="dimmed">
        {t('secureFiles.adminsOnly')}
      </Text>
    ) : (
      <Group gap={4}>
        {groups.map((id) => (
          <Badge key={id} variant="light" color="gray" c="var(--manifold-text)" tt="none">
            {groupNames.data?.get(id) ?? `#${id}`}
          </Badge>
        ))}
      </Group>
    );

  const title = current?.folderName ?? t('secureFiles.title');
  const table = (
    <DataTable
      testId="secure-files-table"
      minWidth={760}
      busy={list.isFetching}
      caption={t('secureFiles.caption', { total: list.data?.totalNumOfItems ?? 0 })}
      columns={[
        t('secureFiles.name'),
        t('secureFiles.descriptionField'),
        t('secureFiles.size'),
        t('secureFiles.sharedWith'),
        t('secureFiles.modified'),
        t('common.actions'),
      ]}
      empty={list.data?.nodes.length === 0 ? t(nodeId ? 'secureFiles.emptyFolder' : 'secureFiles.empty') : null}
    >
      {(list.data?.nodes ?? []).map((node) => (
        <Table.Tr key={node.nodeId} data-node-name={node.folderName}>
          <Table.Td>
            <Stack gap={2}>
              {node.nodeType === 'folder' ? (
                <Anchor component={Link} to={`/secure-files/${node.nodeId}`} style={{ overflowWrap: 'anywhere' }}>
                  <Group gap={6} wrap="nowrap">
                    <IconFolder size={16} aria-hidden />
                    {node.folderName}
                  </Group>
                </Anchor>
              ) : (
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {node.folderName}
                </Text>
              )}
              <ClassificationBadge label={node.classification} />
              {rowErrors[node.nodeId] ? (
                <Text size="xs" c="var(--manifold-danger)" role="alert">
                  {rowErrors[node.nodeId]}
                </Text>
              ) : null}
            </Stack>
          </Table.Td>
          <Table.Td>{node.description}</Table.Td>
          <Table.Td>{node.size === null ? '' : formatBytes(node.size, i18n.language)}</Table.Td>
          <Table.Td>{groupBadges(node.groups)}</Table.Td>
          <Table.Td>
            <time dateTime={node.dateModified}>{format(node.dateModified)}</time>
          </Table.Td>
          <Table.Td>
            <Group gap={4} wrap="nowrap">
              {node.nodeType === 'file' ? (
                <IconAction
                  tooltip={t('secureFiles.download')}
                  label={t('secureFiles.downloadNamed', { name: node.folderName })}
                  icon={IconDownload}
                  loading={download.isPending && download.variables.nodeId === node.nodeId}
                  onClick={() => download.mutate(node, { onError: (error) => rowError(node.nodeId, error) })}
                />
              ) : null}
              <EditDeleteActions
                editLabel={t('secureFiles.editNamed', { name: node.folderName })}
                deleteLabel={t('secureFiles.deleteNamed', { name: node.folderName })}
                onEdit={() => setForm({ kind: 'edit', node, canShare: isAdmin })}
                onDelete={() => confirmDelete(node)}
              />
            </Group>
          </Table.Td>
        </Table.Tr>
      ))}
    </DataTable>
  );

  return (
    <Stack gap="lg">
      <PageHead title={title} description={t('secureFiles.description')} />
      <nav aria-label={t('secureFiles.breadcrumbs')}>
        <Breadcrumbs separatorMargin={6}>
          <Anchor component={Link} to="/secure-files">
            {t('secureFiles.title')}
          </Anchor>
          {ancestors.map((folder) => (
            <Anchor key={folder.nodeId} component={Link} to={`/secure-files/${folder.nodeId}`}>
              {folder.folderName}
            </Anchor>
          ))}
          {current ? <Text aria-current="page">{current.folderName}</Text> : null}
        </Breadcrumbs>
      </nav>
      <Group justify="space-between">
        <Title order={1}>{title}</Title>
        <Group>
          {canCreate && (nodeId === undefined || current) ? (
            <Button
              variant="default"
              leftSection={<IconFolderPlus size={16} aria-hidden />}
              onClick={() => setForm({ kind: 'create', parent: current, canLabel: isAdmin })}
            >
              {t('secureFiles.newFolder')}
            </Button>
          ) : null}
          {current ? (
            <FileButton onChange={upload} multiple resetRef={resetFiles}>
              {(props) => (
                <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
                  {t('secureFiles.upload')}
                </Button>
              )}
            </FileButton>
          ) : null}
        </Group>
      </Group>
      {current ? (
        <Group gap="xs">
          <Text size="sm">{t('secureFiles.ownedBy', { owner: list.data?.owner ?? '' })}</Text>
          <Text size="sm">·</Text>
          <Text size="sm">{t('secureFiles.sharedWithLabel')}</Text>
          {groupBadges(current.groups)}
          <ClassificationBadge label={current.classification} />
        </Group>
      ) : null}
      {list.error ? <ErrorAlert>{apiErrorMessage(t, list.error)}</ErrorAlert> : null}
      {uploadError ? <ErrorAlert>{uploadError}</ErrorAlert> : null}
      <Grid>
        <Grid.Col span={{ base: 12, md: 3 }}>
          <FolderTree currentNodeId={nodeId} openedIds={ancestors.map((folder) => folder.nodeId)} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9 }}>
          <Stack>
            {current ? (
              <Dropzone
                onDrop={upload}
                activateOnClick={false}
                multiple
                data-testid="secure-files-dropzone"
                inputProps={{ 'aria-label': t('secureFiles.dropInput') }}
              >
                <Group justify="center" gap="xs" mih={48} style={{ pointerEvents: 'none' }}>
                  <IconUpload size={20} aria-hidden />
                  <Text size="sm">{t('secureFiles.dropHint')}</Text>
                </Group>
              </Dropzone>
            ) : null}
            {table}
            <ListPagination total={pageCount(list.data)} value={page} onChange={setPage} />
          </Stack>
        </Grid.Col>
      </Grid>
      <FormModal
        opened={form !== null}
        onClose={() => setForm(null)}
        title={form?.kind === 'edit' ? t('secureFiles.editTitle', { name: form.node.folderName }) : t('secureFiles.newFolder')}
      >
        {form ? (
          <NodeForm
            mode={form}
            onCancel={() => setForm(null)}
            onDone={(node) => {
              alerts.success(
                form.kind === 'edit'
                  ? t('secureFiles.saved', { name: node.folderName })
                  : t('secureFiles.created', { name: node.folderName }),
              );
              setForm(null);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
