import { Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { ListFilter } from '../../../components/list-filter';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { pageCount } from '../../../lib/paging';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { useManageInstances, type ManageFilter } from '../api/registrations';
import { AddPeerModal } from '../components/add-peer-form';
import { manageRow, PeerRegistrationsTable } from '../components/peer-registrations-table';

const pageSize = 10;
const filters = ['downStreamManage', 'upStreamManage', 'all'] as const;

function isFilter(value: string): value is ManageFilter {
  return filters.some((filter) => filter === value);
}

/** Manage instances downstream (this one hands them orders) and upstream (they hand orders to this one). */
export function ManageInstancesRoute() {
  const { t } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const paging = usePagedSearch({ filters: ['registrationType'] });
  const { page, setPage } = paging;
  const chosen = paging.filters.registrationType ?? 'downStreamManage';
  const filter: ManageFilter = isFilter(chosen) ? chosen : 'downStreamManage';
  const [adding, setAdding] = useState(false);
  const instances = useManageInstances({ pageNum: page, numberOfItems: pageSize, registrationType: filter });
  usePageInRange(paging, instances);
  const mayAdd = roleCan(session.data?.userProfile.role, 'POST /ui/manage/add');

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('network.manage.title')}
        description={t('network.manage.description')}
        add={mayAdd ? { label: t('network.manage.add'), onClick: () => setAdding(true) } : null}
      />
      <ListFilter
        label={t('network.manage.filter')}
        value={filter}
        options={filters.map((value) => ({
          value,
          label: value === 'all' ? t('network.manage.all') : t(`network.relations.${value}`),
        }))}
        onChange={(value) => paging.setFilters({ registrationType: value === 'downStreamManage' ? undefined : value })}
      />
      {instances.error ? <ErrorAlert>{apiErrorMessage(t, instances.error)}</ErrorAlert> : null}
      <PeerRegistrationsTable
        kind="manage"
        testId="manage-instances-table"
        rows={(instances.data?.data ?? []).map(manageRow)}
        busy={instances.isFetching}
        total={instances.data?.totalNumOfItems ?? 0}
        showRelation={filter === 'all'}
      />
      <ListPagination total={pageCount(instances.data)} value={page} onChange={setPage} />
      <AddPeerModal
        kind="manage"
        initialType={filter === 'upStreamManage' ? 'upStreamManage' : 'downStreamManage'}
        opened={adding}
        onClose={() => setAdding(false)}
        title={t('network.manage.addTitle')}
      />
    </Stack>
  );
}
