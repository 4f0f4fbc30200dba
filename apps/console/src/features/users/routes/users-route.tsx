import { Badge, Button, Group, Modal, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { displayName, type TUserProfile } from '@manifold/contract';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { EditDeleteActions, EmptyTableRow } from '../../../components/row-actions';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { sessionQueryOptions } from '../../../lib/session';
import { useDeleteUser } from '../api/delete-user';
import { useUsers } from '../api/get-users';
import { UserForm } from '../components/user-form';
import { useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';

const pageSize = 10;

type Editing = { mode: 'add' } | { mode: 'edit'; user: TUserProfile } | null;

/** Users (ADMIN): paged list with search, add, edit and delete with confirmation. */
export function UsersRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const [editing, setEditing] = useState<Editing>(null);
  const session = useQuery(sessionQueryOptions());
  const currentUsername = session.data?.userProfile.username ?? '';
  const users = useUsers({ pageNum: page, numberOfItems: pageSize, search: debouncedSearch.trim() || undefined });
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

  const totalPages = Math.max(1, users.data?.totalNumOfPages ?? 1);

  return (
    <Stack gap="lg">
      <PageHead title={t('users.title')} description={t('users.description')} />
      <Group justify="space-between">
        <Title order={1}>{t('users.title')}</Title>
        <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setEditing({ mode: 'add' })}>
          {t('users.add')}
        </Button>
      </Group>
      <TextInput
        label={t('users.search')}
        leftSection={<IconSearch size={16} aria-hidden />}
        value={search}
        maw={360}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          setPage(1);
        }}
      />
      {users.error ? <ErrorAlert>{apiErrorMessage(t, users.error)}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover aria-busy={users.isFetching} data-testid="users-table">
          <Table.Caption>{t('users.caption', { total: users.data?.totalNumOfItems ?? 0 })}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('fields.username')}</Table.Th>
              <Table.Th scope="col">{t('users.name')}</Table.Th>
              <Table.Th scope="col">{t('fields.email')}</Table.Th>
              <Table.Th scope="col">{t('fields.company')}</Table.Th>
              <Table.Th scope="col">{t('fields.role')}</Table.Th>
              <Table.Th scope="col">
                <Text component="span" size="sm" fw={700}>
                  {t('common.actions')}
                </Text>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
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
                    c={user.role === 'ADMIN' ? 'green.9' : 'gray.9'}
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
            {users.data && users.data.data.length === 0 ? <EmptyTableRow colSpan={6}>{t('users.empty')}</EmptyTableRow> : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination total={totalPages} value={page} onChange={setPage} />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('users.editTitle') : t('users.addTitle')}
        size="lg"
        closeButtonProps={{ 'aria-label': t('common.close') }}
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
      </Modal>
    </Stack>
  );
}
