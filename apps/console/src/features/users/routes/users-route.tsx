import { Badge, Stack, Table } from '@mantine/core';
import { displayName, type TUserProfile } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions } from '../../../components/row-actions';
import { SearchField } from '../../../components/search-field';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { alerts } from '../../../lib/alerts';
import { pageCount } from '../../../lib/paging';
import { sessionQueryOptions } from '../../../lib/session';
import { useDeleteUser } from '../api/delete-user';
import { useUsers } from '../api/get-users';
import { HeldBackLogins } from '../components/held-back-logins';
import { UserForm } from '../components/user-form';

const pageSize = 10;

type Editing = { mode: 'add' } | { mode: 'edit'; user: TUserProfile } | null;

/** Users (ADMIN): paged list with search, add, edit and delete with confirmation. */
export function UsersRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage, search, setSearch, query } = paging;
  const [editing, setEditing] = useState<Editing>(null);
  const session = useQuery(sessionQueryOptions());
  const currentUsername = session.data?.userProfile.username ?? '';
  const users = useUsers({ pageNum: page, numberOfItems: pageSize, search: query });
  usePageInRange(paging, users);
  const deleteUser = useDeleteUser();

  const confirmDelete = (user: TUserProfile) => {
    confirm({
      title: t('users.deleteTitle'),
      message: t('users.deleteConfirm', { username: user.username }),
      onConfirm: () =>
        deleteUser.mutate(
          { username: user.username },
          {
            onSuccess: () => alerts.success(t('users.deleted', { username: user.username })),
            onError: (error) => alerts.error(apiErrorMessage(t, error)),
          },
        ),
    });
  };

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('users.title')}
        description={t('users.description')}
        add={{ label: t('users.add'), onClick: () => setEditing({ mode: 'add' }) }}
      />
      <SearchField label={t('users.search')} value={search} onChange={setSearch} />
      {users.error ? <ErrorAlert>{apiErrorMessage(t, users.error)}</ErrorAlert> : null}
      <DataTable
        testId="users-table"
        minWidth={720}
        busy={users.isFetching}
        caption={t('users.caption', { count: users.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('fields.username'),
          t('users.name'),
          t('fields.email'),
          t('fields.company'),
          t('fields.role'),
          t('common.actions'),
        ]}
        empty={users.data?.data.length === 0 ? t(paging.narrowed ? 'users.noMatch' : 'users.empty') : null}
      >
        {(users.data?.data ?? []).map((user) => (
          <Table.Tr key={user.username} data-username={user.username}>
            <Table.Td>{user.username}</Table.Td>
            <Table.Td>{displayName(user)}</Table.Td>
            <Table.Td>{user.email}</Table.Td>
            <Table.Td>{user.company ?? ''}</Table.Td>
            <Table.Td>
              <Badge
                color={user.role === 'ADMIN' ? 'green' : 'gray'}
                variant="light"
                c={user.role === 'ADMIN' ? 'var(--manifold-success)' : 'var(--manifold-text)'}
              >
                {t(`roles.${user.role}`)}
              </Badge>
            </Table.Td>
            <Table.Td>
              <EditDeleteActions
                editLabel={t('users.editUser', { username: user.username })}
                deleteLabel={t('users.deleteUser', { username: user.username })}
                onEdit={() => setEditing({ mode: 'edit', user })}
                onDelete={() => confirmDelete(user)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(users.data)} value={page} onChange={setPage} />
      <HeldBackLogins />
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('users.editTitle') : t('users.addTitle')}
      >
        {editing ? (
          <UserForm
            key={editing.mode === 'edit' ? editing.user.username : 'new'}
            user={editing.mode === 'edit' ? editing.user : undefined}
            currentUsername={currentUsername}
            onCancel={() => setEditing(null)}
            onDone={(profile) => {
              alerts.success(
                editing.mode === 'edit'
                  ? t('users.saved', { username: profile.username })
                  : t('users.added', { username: profile.username }),
              );
              setEditing(null);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
