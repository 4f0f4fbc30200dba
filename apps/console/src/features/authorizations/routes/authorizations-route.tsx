import { Button, Group, Select, SimpleGrid, Stack, Switch, TextInput, Title } from '@mantine/core';
import { orderSortFields } from '@manifold/contract';
import { IconFilter } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { useSearchParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { AuthorizationTable } from '../../../components/authorization-table';
import { PageHead } from '../../../components/page-head';
import { useAuthorizations, type GetAuthorizationsInput } from '../api/get-authorizations';
import {
  authorizationListInputFrom,
  authorizationListSearch,
  authorizationTextFilters,
  type AuthorizationTextFilter,
} from '../components/authorization-list-params';
import { ErrorAlert } from '../../../components/error-alert';

const pageSizes = ['10', '25', '50', '100'];

type FilterValues = Record<AuthorizationTextFilter, string>;

function filterValues(input: GetAuthorizationsInput): FilterValues {
  return {
    filterByCompanyName: input.filterByCompanyName ?? '',
    filterByUserId: input.filterByUserId ?? '',
    filterByDsiId: input.filterByDsiId ?? '',
    orderId: input.orderId ?? '',
    authorizationId: input.authorizationId ?? '',
  };
}

/** Every authorization the user may see: sorted, filtered, paged (kept in the address); send, revoke, download. */
export function AuthorizationsRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const input = authorizationListInputFrom(params);
  const authorizations = useAuthorizations(input);
  const [filters, setFilters] = useState<FilterValues>(filterValues(input));

  const update = (change: Partial<GetAuthorizationsInput>) =>
    setParams(authorizationListSearch({ ...input, pageNum: 1, ...change }));

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    update(Object.fromEntries(authorizationTextFilters.map((name) => [name, filters[name].trim() || undefined])));
  };

  const clear = () => {
    setFilters(filterValues({ ...input, ...Object.fromEntries(authorizationTextFilters.map((name) => [name, undefined])) }));
    update(Object.fromEntries(authorizationTextFilters.map((name) => [name, undefined])));
  };

  const totalPages = Math.max(1, authorizations.data?.totalNumOfPages ?? 1);

  return (
    <Stack gap="lg">
      <PageHead title={t('authorizations.title')} description={t('authorizations.description')} />
      <Title order={1}>{t('authorizations.title')}</Title>
      <form onSubmit={apply} aria-label={t('authorizations.filters.title')}>
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            {authorizationTextFilters.map((name) => (
              <TextInput
                key={name}
                label={t(`authorizations.filters.${name}`)}
                value={filters[name]}
                onChange={(event) => {
                  const value = event.currentTarget.value;
                  setFilters((previous) => ({ ...previous, [name]: value }));
                }}
              />
            ))}
          </SimpleGrid>
          <Group justify="space-between" align="flex-end">
            <Group>
              <Button type="submit" variant="default" leftSection={<IconFilter size={16} aria-hidden />}>
                {t('authorizations.filters.apply')}
              </Button>
              <Button variant="default" onClick={clear}>
                {t('authorizations.filters.clear')}
              </Button>
            </Group>
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
          </Group>
        </Stack>
      </form>
      {authorizations.error ? <ErrorAlert>{apiErrorMessage(t, authorizations.error)}</ErrorAlert> : null}
      <AuthorizationTable
        withOrder
        authorizations={authorizations.data?.data ?? []}
        busy={authorizations.isFetching}
        caption={t('authorizations.caption', { total: authorizations.data?.totalNumOfItems ?? 0 })}
      />
      <Group justify="space-between">
        {totalPages > 1 ? (
          <ListPagination
            total={totalPages}
            value={Math.min(input.pageNum, totalPages)}
            onChange={(pageNum) => setParams(authorizationListSearch({ ...input, pageNum }))}
          />
        ) : (
          <span />
        )}
        <Select
          label={t('authorizations.pageSize')}
          data={pageSizes}
          value={String(input.numberOfItems)}
          allowDeselect={false}
          w={120}
          onChange={(value) => update({ numberOfItems: Number(value ?? 10) })}
        />
      </Group>
    </Stack>
  );
}
