import { Stack, Table } from '@mantine/core';
import type { TGroup } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { BadgeList } from '../../../components/badge-list';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions } from '../../../components/row-actions';
import { alerts } from '../../../lib/alerts';
import { pageCount } from '../../../lib/paging';
import { useDeleteGroup } from '../api/delete-group';
import { useGroups } from '../api/get-groups';
import { GroupForm } from '../components/group-form';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

type Editing = { mode: 'add' } | { mode: 'edit'; group: TGroup } | null;

/** Groups (ADMIN): paged list, add, edit name, description and members, delete with confirmation. */
export function GroupsRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [editing, setEditing] = useState<Editing>(null);
  const groups = useGroups({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, groups);
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

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('groups.title')}
        description={t('groups.description')}
        add={{ label: t('groups.add'), onClick: () => setEditing({ mode: 'add' }) }}
      />
      {groups.error ? <ErrorAlert>{apiErrorMessage(t, groups.error)}</ErrorAlert> : null}
      <DataTable
        testId="groups-table"
        minWidth={640}
        busy={groups.isFetching}
        caption={t('groups.caption', { count: groups.data?.totalNumOfItems ?? 0 })}
        columns={[t('groups.name'), t('groups.descriptionField'), t('groups.members'), t('common.actions')]}
        empty={groups.data?.data.length === 0 ? t('groups.empty') : null}
      >
        {(groups.data?.data ?? []).map((group) => (
          <Table.Tr key={group.userGroupId} data-group={group.name}>
            <Table.Td>{group.name}</Table.Td>
            <Table.Td>{group.description}</Table.Td>
            <Table.Td>
              <BadgeList items={group.members.map((member) => ({ key: member, label: member }))} />
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
      </DataTable>
      <ListPagination total={pageCount(groups.data)} value={page} onChange={setPage} />
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('groups.editTitle') : t('groups.addTitle')}
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
      </FormModal>
    </Stack>
  );
}
