import { Stack, Table } from '@mantine/core';
import type { TAccessControl } from '@manifold/contract';
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
import { useAccessPolicies, useDeleteAccessPolicy } from '../api/access-controls';
import { PolicyForm } from '../components/policy-form';
import { formatList } from '../../../lib/text-join';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** Access policies (ADMIN with security-config): which networks may exercise which constraints. */
export function AccessPoliciesRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<TAccessControl | null>(null);
  const close = () => {
    setAdding(false);
    setEditing(null);
  };
  const policies = useAccessPolicies(page, pageSize);
  usePageInRange(paging, policies);
  const remove = useDeleteAccessPolicy();

  const confirmDelete = (policy: TAccessControl) =>
    confirm({
      title: t('accessControl.policies.deleteTitle'),
      message: t('accessControl.policies.deleteConfirm', { name: policy.policyName }),
      onConfirm: () =>
        remove.mutate(policy.accessControlId, {
          onSuccess: () => alerts.success(t('accessControl.policies.deleted', { name: policy.policyName })),
          onError: (error) => alerts.error(apiErrorMessage(t, error)),
        }),
    });

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('accessControl.policies.title')}
        description={t('accessControl.policies.description')}
        add={{ label: t('accessControl.policies.add'), onClick: () => setAdding(true) }}
      />
      {policies.error ? <ErrorAlert>{apiErrorMessage(t, policies.error)}</ErrorAlert> : null}
      <DataTable
        testId="access-policies-table"
        minWidth={640}
        busy={policies.isFetching}
        caption={t('accessControl.policies.caption', { total: policies.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('accessControl.policies.name'),
          t('accessControl.constraints'),
          t('accessControl.policies.ranges'),
          t('common.actions'),
        ]}
        empty={policies.data?.data.length === 0 ? t('accessControl.policies.empty') : null}
      >
        {(policies.data?.data ?? []).map((policy) => (
          <Table.Tr key={policy.accessControlId} data-policy={policy.policyName}>
            <Table.Td>{policy.policyName}</Table.Td>
            <Table.Td>
              <BadgeList
                items={policy.constraints.map((constraint) => ({
                  key: constraint,
                  label: t(`accessControl.constraint.${constraint}`),
                }))}
              />
            </Table.Td>
            <Table.Td>{formatList(t, policy.incomingIpAddresses)}</Table.Td>
            <Table.Td>
              <EditDeleteActions
                editLabel={t('accessControl.policies.editPolicy', { name: policy.policyName })}
                deleteLabel={t('accessControl.policies.deletePolicy', { name: policy.policyName })}
                onEdit={() => setEditing(policy)}
                onDelete={() => confirmDelete(policy)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(policies.data)} value={page} onChange={setPage} />
      <FormModal
        opened={adding || editing !== null}
        onClose={close}
        title={editing ? t('accessControl.policies.editTitle') : t('accessControl.policies.addTitle')}
      >
        {adding || editing ? (
          <PolicyForm
            key={editing?.accessControlId ?? 'new'}
            {...(editing ? { policy: editing } : {})}
            onCancel={close}
            onDone={(saved) => {
              alerts.success(
                editing
                  ? t('accessControl.policies.edited', { name: saved.policyName })
                  : t('accessControl.policies.added', { name: saved.policyName }),
              );
              close();
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
