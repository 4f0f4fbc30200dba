import { Badge, Button, Group, Modal, Stack, Table, Title } from '@mantine/core';
import type { TGroup } from '@manifold/contract';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions, EmptyTableRow } from '../../../components/row-actions';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { useDeleteGroup } from '../api/delete-group';
import { useGroups } from '../api/get-groups';
import { GroupForm } from '../components/group-form';
import { useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';

const pageSize = 10;

type Editing = { mode: 'add' } | { mode: 'edit'; group: TGroup } | null;

/** Groups (ADMIN): paged list, add, edit name, description and members, delete with confirmation. */
export function GroupsRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Editing>(null);
  const groups = useGroups({ pageNum: page, numberOfItems: pageSize });
  const deleteGroup = useDeleteGroup();

  const confirmDelete = (group: TGroup) => {
    confirm({
      title: t('groups.deleteTitle'),
      message: t('groups.deleteConfirm', { name: group.name }),
      onConfirm: () =>
        deleteGroup.mutate(
          { userGroupId: group.userGroupId },
          {
            onSuccess: () => alerts.success(t('groups.deleted', { name: group.name })),
            onError: (error) => alerts.error(apiErrorMessage(t, error)),
          },
        ),
    });
  };

  const totalPages = Math.max(1, groups.data?.totalNumOfPages ?? 1);

  return (
    <Stack gap="lg">
      <PageHead title={t('groups.title')} description={t('groups.description')} />
      <Group justify="space-between">
        <Title order={1}>{t('groups.title')}</Title>
        <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setEditing({ mode: 'add' })}>
          {t('groups.add')}
        </Button>
      </Group>
      {groups.error ? <ErrorAlert>{apiErrorMessage(t, groups.error)}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-busy={groups.isFetching} data-testid="groups-table">
          <Table.Caption>{t('groups.caption', { total: groups.data?.totalNumOfItems ?? 0 })}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('groups.name')}</Table.Th>
              <Table.Th scope="col">{t('groups.descriptionField')}</Table.Th>
              <Table.Th scope="col">{t('groups.members')}</Table.Th>
              <Table.Th scope="col">{t('common.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(groups.data?.data ?? []).map((group) => (
              <Table.Tr key={group.userGroupId} data-group={group.name}>
                <Table.Td>{group.name}</Table.Td>
                <Table.Td>{group.description}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {group.members.map((member) => (
                      <Badge key={member} variant="light" color="gray" c="gray.9" tt="none">
                        {member}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <EditDeleteActions
                    editLabel={t('groups.editGroup', { name: group.name })}
                    deleteLabel={t('groups.deleteGroup', { name: group.name })}
                    onEdit={() => setEditing({ mode: 'edit', group })}
                    onDelete={() => confirmDelete(group)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
            {groups.data && groups.data.data.length === 0 ? <EmptyTableRow colSpan={4}>{t('groups.empty')}</EmptyTableRow> : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination total={totalPages} value={page} onChange={setPage} />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('groups.editTitle') : t('groups.addTitle')}
        size="lg"
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        {editing ? (
          <GroupForm
            key={editing.mode === 'edit' ? editing.group.userGroupId : 'new'}
            group={editing.mode === 'edit' ? editing.group : undefined}
            onCancel={() => setEditing(null)}
            onDone={(group) => {
              alerts.success(
                editing.mode === 'edit' ? t('groups.saved', { name: group.name }) : t('groups.added', { name: group.name }),
              );
              setEditing(null);
            }}
          />
        ) : null}
      </Modal>
    </Stack>
  );
}
