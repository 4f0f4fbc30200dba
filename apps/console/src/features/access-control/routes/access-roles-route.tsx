import { Stack, Table } from '@mantine/core';
import type { TAccessRole } from '@manifold/contract';
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
import { useAccessRoles, useDeleteAccessRole } from '../api/access-controls';
import { EscalationPolicyCard } from '../components/escalation-policy-card';
import { RoleForm } from '../components/role-form';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** Access roles (ADMIN with security-config): who holds which constraint, and whether it needs a security key. */
export function AccessRolesRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<TAccessRole | null>(null);
  const close = () => {
    setAdding(false);
    setEditing(null);
  };
  const roles = useAccessRoles(page, pageSize);
  usePageInRange(paging, roles);
  const remove = useDeleteAccessRole();

  const confirmDelete = (role: TAccessRole) =>
    confirm({
      title: t('accessControl.roles.deleteTitle'),
      message: t('accessControl.roles.deleteConfirm', { code: role.roleCode, constraint: role.constraintName }),
      onConfirm: () =>
        remove.mutate(role.accessRoleId, {
          onSuccess: () => alerts.success(t('accessControl.roles.deleted', { code: role.roleCode })),
          onError: (error) => alerts.error(apiErrorMessage(t, error)),
        }),
    });

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('accessControl.roles.title')}
        description={t('accessControl.roles.description')}
        add={{ label: t('accessControl.roles.add'), onClick: () => setAdding(true) }}
      />
      {roles.error ? <ErrorAlert>{apiErrorMessage(t, roles.error)}</ErrorAlert> : null}
      <DataTable
        testId="access-roles-table"
        minWidth={640}
        busy={roles.isFetching}
        caption={t('accessControl.roles.caption', { total: roles.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('accessControl.roles.code'),
          t('accessControl.roles.constraint'),
          t('accessControl.roles.members'),
          t('common.actions'),
        ]}
        empty={roles.data?.data.length === 0 ? t('accessControl.roles.empty') : null}
      >
        {(roles.data?.data ?? []).map((role) => (
          <Table.Tr key={role.accessRoleId} data-role={role.roleCode}>
            <Table.Td>{role.roleCode}</Table.Td>
            <Table.Td>{t(`accessControl.constraint.${role.constraintName}`)}</Table.Td>
            <Table.Td>
              <BadgeList items={role.roleMembers.map((member) => ({ key: member, label: member }))} />
            </Table.Td>
            <Table.Td>
              <EditDeleteActions
                editLabel={t('accessControl.roles.editRole', { code: role.roleCode, constraint: role.constraintName })}
                deleteLabel={t('accessControl.roles.deleteRole', { code: role.roleCode, constraint: role.constraintName })}
                onEdit={() => setEditing(role)}
                onDelete={() => confirmDelete(role)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(roles.data)} value={page} onChange={setPage} />
      <EscalationPolicyCard />
      <FormModal
        opened={adding || editing !== null}
        onClose={close}
        title={editing ? t('accessControl.roles.editTitle') : t('accessControl.roles.addTitle')}
      >
        {adding || editing ? (
          <RoleForm
            key={editing?.accessRoleId ?? 'new'}
            {...(editing ? { role: editing } : {})}
            onCancel={close}
            onDone={(saved) => {
              alerts.success(
                editing
                  ? t('accessControl.roles.edited', { code: saved.roleCode })
                  : t('accessControl.roles.added', { code: saved.roleCode }),
              );
              close();
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
