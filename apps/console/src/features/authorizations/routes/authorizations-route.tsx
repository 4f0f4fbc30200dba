import { Group, Select, Stack, Switch } from '@mantine/core';
import { orderSortFields } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { useLatestSearchParams } from '../../../hooks/use-latest-search-params';
import { usePageInRange } from '../../../hooks/use-paged-search';
import { apiErrorMessage } from '../../../components/api-error-message';
import { AuthorizationTable } from '../../../components/authorization-table';
import { orderListNarrowed } from '../../../lib/order-list';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { PagingFooter } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { pageCount } from '../../../lib/paging';
import { useAuthorizations, type GetAuthorizationsInput } from '../api/get-authorizations';
import {
  authorizationListInputFrom,
  authorizationListSearch,
  authorizationTextFilters,
} from '../components/authorization-list-params';
import { filterField } from '../../../components/id-inputs';

/** Every authorization the user may see: sorted, filtered, paged (kept in the address); send, revoke, download. */
export function AuthorizationsRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useLatestSearchParams();
  const input = authorizationListInputFrom(params);
  const authorizations = useAuthorizations(input);

  const update = (change: Partial<GetAuthorizationsInput>) =>
    setParams((latest) => authorizationListSearch({ ...authorizationListInputFrom(latest), pageNum: 1, ...change }));
  const page = (pageNum: number, options?: { replace?: boolean }) =>
    setParams((latest) => authorizationListSearch({ ...authorizationListInputFrom(latest), pageNum }), options);
  usePageInRange({ page: input.pageNum, setPage: page }, authorizations);

  return (
    <Stack gap="lg">
      <ListHeader title={t('authorizations.title')} description={t('authorizations.description')} />
      <TextFilterForm
        title={t('authorizations.filters.title')}
        fields={authorizationTextFilters.map((name) => filterField(name, t(`authorizations.filters.${name}`)))}
        applied={input}
        onApply={update}
        applyLabel={t('authorizations.filters.apply')}
        clearLabel={t('authorizations.filters.clear')}
      >
        <Group align="flex-end">
          <Select
            label={t('authorizations.sortBy')}
            w={180}
            data={orderSortFields.map((field) => ({ value: field, label: t(`authorizations.sortFields.${field}`) }))}
            value={input.sortBy}
            allowDeselect={false}
            onChange={(value) => {
              const field = orderSortFields.find((candidate) => candidate === value);
              if (field) update({ sortBy: field });
            }}
          />
          <Select
            label={t('authorizations.sortOrder')}
            w={160}
            data={[
              { value: 'asc', label: t('authorizations.ascending') },
              { value: 'desc', label: t('authorizations.descending') },
            ]}
            value={input.sortOrder}
            allowDeselect={false}
            onChange={(value) => update({ sortOrder: value === 'asc' ? 'asc' : 'desc' })}
          />
          <Switch
            mb={8}
            label={t('authorizations.filters.archived')}
            checked={input.filterByArchived}
            onChange={(event) => update({ filterByArchived: event.currentTarget.checked })}
          />
        </Group>
      </TextFilterForm>
      {authorizations.error ? <ErrorAlert>{apiErrorMessage(t, authorizations.error)}</ErrorAlert> : null}
      <AuthorizationTable
        withOrder
        authorizations={authorizations.data?.data ?? []}
        busy={authorizations.isFetching}
        caption={t('authorizations.caption', { total: authorizations.data?.totalNumOfItems ?? 0 })}
        filtered={orderListNarrowed(input, authorizationTextFilters)}
      />
      <PagingFooter
        totalPages={pageCount(authorizations.data)}
        pageNum={input.pageNum}
        onPage={page}
        pageSizeLabel={t('authorizations.pageSize')}
        pageSize={input.numberOfItems}
        onPageSize={(numberOfItems) => update({ numberOfItems })}
      />
    </Stack>
  );
}
