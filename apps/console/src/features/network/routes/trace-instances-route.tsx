import { Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { pageCount } from '../../../lib/paging';
import { useTraceInstances } from '../api/registrations';
import { AddPeerModal } from '../components/add-peer-form';
import { PeerRegistrationsTable, traceRow } from '../components/peer-registrations-table';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** Trace instances this one reports its events to, and instances that asked to report to this one. */
export function TraceInstancesRoute() {
  const { t } = useTranslation();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const instances = useTraceInstances({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, instances);

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('network.trace.title')}
        description={t('network.trace.description')}
        add={{ label: t('network.trace.add'), onClick: () => setAdding(true) }}
      />
      {instances.error ? <ErrorAlert>{apiErrorMessage(t, instances.error)}</ErrorAlert> : null}
      <PeerRegistrationsTable
        kind="trace"
        testId="trace-instances-table"
        rows={(instances.data?.data ?? []).map(traceRow)}
        busy={instances.isFetching}
        total={instances.data?.totalNumOfItems ?? 0}
      />
      <ListPagination total={pageCount(instances.data)} value={page} onChange={setPage} />
      <AddPeerModal kind="trace" opened={adding} onClose={() => setAdding(false)} title={t('network.trace.addTitle')} />
    </Stack>
  );
}
