import { Anchor, Group, Stack, Switch, Table, Text, UnstyledButton } from '@mantine/core';
import type { TOrder } from '@manifold/contract';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useLatestSearchParams } from '../../../hooks/use-latest-search-params';
import { usePageInRange } from '../../../hooks/use-paged-search';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { PagingFooter } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { useOrders, type GetOrdersInput } from '../api/get-orders';
import { AddOrderForm } from '../components/add-order-form';
import { OrderStateBadges } from '../components/order-state-badges';
import { orderListInputFrom, orderListSearch, orderTextFilters, type OrderSortField } from '../components/order-list-params';
import { orderListNarrowed } from '../../../lib/order-list';
import { filterField } from '../../../components/id-inputs';

const filterLabels = { filterByCompanyName: 'companyName', filterByUserId: 'userId', filterByDsiId: 'dsiId' } as const;

function SortHeader({
  field,
  input,
  onSort,
}: {
  field: OrderSortField;
  input: GetOrdersInput;
  onSort: (field: OrderSortField) => void;
}) {
  const { t } = useTranslation();
  const active = input.sortBy === field;
  const Icon = !active ? IconArrowsSort : input.sortOrder === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <Table.Th scope="col" aria-sort={active ? (input.sortOrder === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => onSort(field)} fw={700} fz="sm">
        <Group gap={4} wrap="nowrap">
          {t(`orders.columns.${field}`)}
          <Icon size={14} aria-hidden />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

/** Orders: sorted, filtered, archived or not, paged — all kept in the address. */
export function OrdersRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const [params, setParams] = useLatestSearchParams();
  const input = orderListInputFrom(params);
  const orders = useOrders(input);
  const [adding, setAdding] = useState(false);

  const update = (change: Partial<GetOrdersInput>) =>
    setParams((latest) => orderListSearch({ ...orderListInputFrom(latest), pageNum: 1, ...change }));
  const page = (pageNum: number, options?: { replace?: boolean }) =>
    setParams((latest) => orderListSearch({ ...orderListInputFrom(latest), pageNum }), options);
  usePageInRange({ page: input.pageNum, setPage: page }, orders);

  const onSort = (field: OrderSortField) =>
    update({ sortBy: field, sortOrder: input.sortBy === field && input.sortOrder === 'asc' ? 'desc' : 'asc' });

  const rows: TOrder[] = orders.data?.data ?? [];

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('orders.title')}
        description={t('orders.description')}
        add={{ label: t('orders.add.open'), onClick: () => setAdding(true) }}
      />
      <TextFilterForm
        title={t('orders.filters.title')}
        fields={orderTextFilters.map((name) => filterField(name, t(`orders.filters.${filterLabels[name]}`)))}
        applied={input}
        onApply={update}
        applyLabel={t('orders.filters.apply')}
        clearLabel={t('orders.filters.clear')}
      >
        <Switch
          mb={8}
          label={t('orders.filters.archived')}
          checked={input.filterByArchived}
          onChange={(event) => update({ filterByArchived: event.currentTarget.checked })}
        />
      </TextFilterForm>
      {orders.error ? <ErrorAlert data-testid="orders-error">{apiErrorMessage(t, orders.error)}</ErrorAlert> : null}
      <DataTable
        testId="orders-table"
        minWidth={900}
        busy={orders.isFetching}
        caption={
          input.filterByArchived
            ? t('orders.captionArchived', { total: orders.data?.totalNumOfItems ?? 0 })
            : t('orders.caption', { total: orders.data?.totalNumOfItems ?? 0 })
        }
        columns={[
          <SortHeader key="orderId" field="orderId" input={input} onSort={onSort} />,
          t('orders.columns.orderNumber'),
          <SortHeader key="companyName" field="companyName" input={input} onSort={onSort} />,
          t('orders.columns.design'),
          t('orders.columns.remaining'),
          t('orders.columns.state'),
          <SortHeader key="userId" field="userId" input={input} onSort={onSort} />,
          <SortHeader key="dateCreated" field="dateCreated" input={input} onSort={onSort} />,
        ]}
        empty={
          orders.data && rows.length === 0
            ? t(orderListNarrowed(input, orderTextFilters) ? 'orders.noMatch' : 'orders.empty')
            : null
        }
      >
        {rows.map((order) => (
          <Table.Tr key={order.orderId} data-order-id={order.orderId} data-order-number={order.orderNumber}>
            <Table.Td>
              <Anchor
                component={Link}
                to={`/orders/${order.orderId}`}
                c="var(--manifold-link)"
                ff="monospace"
                title={order.orderId}
              >
                {order.orderId.slice(0, 8)}
              </Anchor>
            </Table.Td>
            <Table.Td>{order.orderNumber}</Table.Td>
            <Table.Td>{order.companyName}</Table.Td>
            <Table.Td>
              {order.dsi.designName}
              <Text component="span" size="xs" c="dimmed" ml={4}>
                {t('orders.version', { version: order.dsi.dsiVersion })}
              </Text>
            </Table.Td>
            <Table.Td>{t('orders.remainingOf', { remaining: order.remainingQuantity, quantity: order.quantity })}</Table.Td>
            <Table.Td>
              <OrderStateBadges order={order} />
            </Table.Td>
            <Table.Td>{order.userID}</Table.Td>
            <Table.Td>
              <time dateTime={order.dateCreated}>{format(order.dateCreated)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <PagingFooter
        totalPages={pageCount(orders.data)}
        pageNum={input.pageNum}
        onPage={page}
        pageSizeLabel={t('orders.pageSize')}
        pageSize={input.numberOfItems}
        onPageSize={(numberOfItems) => update({ numberOfItems })}
      />
      <FormModal opened={adding} onClose={() => setAdding(false)} title={t('orders.add.title')} size="xl">
        {adding ? <AddOrderForm onCancel={() => setAdding(false)} /> : null}
      </FormModal>
    </Stack>
  );
}
