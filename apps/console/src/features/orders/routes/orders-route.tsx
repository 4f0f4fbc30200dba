import {
  Anchor,
  Button,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import type { TOrder } from '@manifold/contract';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconFilter, IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { Link, useSearchParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { useDateTimeFormat } from '../../../lib/format';
import { useOrders, type GetOrdersInput } from '../api/get-orders';
import { AddOrderForm } from '../components/add-order-form';
import { OrderStateBadges } from '../components/order-state-badges';
import { orderListInputFrom, orderListSearch, type OrderSortField } from '../components/order-list-params';
import { ErrorAlert } from '../../../components/error-alert';

const pageSizes = ['10', '25', '50', '100'];

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
  const [params, setParams] = useSearchParams();
  const input = orderListInputFrom(params);
  const orders = useOrders(input);
  const [adding, setAdding] = useState(false);
  const [filters, setFilters] = useState({
    filterByDsiId: input.filterByDsiId ?? '',
    filterByCompanyName: input.filterByCompanyName ?? '',
    filterByUserId: input.filterByUserId ?? '',
  });

  const update = (change: Partial<GetOrdersInput>) => setParams(orderListSearch({ ...input, pageNum: 1, ...change }));

  const onSort = (field: OrderSortField) =>
    update({ sortBy: field, sortOrder: input.sortBy === field && input.sortOrder === 'asc' ? 'desc' : 'asc' });

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    update({
      filterByDsiId: filters.filterByDsiId.trim() || undefined,
      filterByCompanyName: filters.filterByCompanyName.trim() || undefined,
      filterByUserId: filters.filterByUserId.trim() || undefined,
    });
  };

  const clearFilters = () => {
    setFilters({ filterByDsiId: '', filterByCompanyName: '', filterByUserId: '' });
    update({ filterByDsiId: undefined, filterByCompanyName: undefined, filterByUserId: undefined });
  };

  const totalPages = Math.max(1, orders.data?.totalNumOfPages ?? 1);
  const rows: TOrder[] = orders.data?.data ?? [];

  return (
    <Stack gap="lg">
      <PageHead title={t('orders.title')} description={t('orders.description')} />
      <Group justify="space-between">
        <Title order={1}>{t('orders.title')}</Title>
        <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setAdding(true)}>
          {t('orders.add.open')}
        </Button>
      </Group>
      <form onSubmit={applyFilters} aria-label={t('orders.filters.title')}>
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput
              label={t('orders.filters.companyName')}
              value={filters.filterByCompanyName}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setFilters((previous) => ({ ...previous, filterByCompanyName: value }));
              }}
            />
            <TextInput
              label={t('orders.filters.userId')}
              value={filters.filterByUserId}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setFilters((previous) => ({ ...previous, filterByUserId: value }));
              }}
            />
            <TextInput
              label={t('orders.filters.dsiId')}
              value={filters.filterByDsiId}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setFilters((previous) => ({ ...previous, filterByDsiId: value }));
              }}
            />
          </SimpleGrid>
          <Group justify="space-between">
            <Group>
              <Button type="submit" variant="default" leftSection={<IconFilter size={16} aria-hidden />}>
                {t('orders.filters.apply')}
              </Button>
              <Button variant="default" onClick={clearFilters}>
                {t('orders.filters.clear')}
              </Button>
            </Group>
            <Switch
              label={t('orders.filters.archived')}
              checked={input.filterByArchived}
              onChange={(event) => update({ filterByArchived: event.currentTarget.checked })}
            />
          </Group>
        </Stack>
      </form>
      {orders.error ? <ErrorAlert data-testid="orders-error">{apiErrorMessage(t, orders.error)}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-busy={orders.isFetching} data-testid="orders-table">
          <Table.Caption>
            {input.filterByArchived
              ? t('orders.captionArchived', { total: orders.data?.totalNumOfItems ?? 0 })
              : t('orders.caption', { total: orders.data?.totalNumOfItems ?? 0 })}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <SortHeader field="orderId" input={input} onSort={onSort} />
              <Table.Th scope="col">{t('orders.columns.orderNumber')}</Table.Th>
              <SortHeader field="companyName" input={input} onSort={onSort} />
              <Table.Th scope="col">{t('orders.columns.design')}</Table.Th>
              <Table.Th scope="col">{t('orders.columns.remaining')}</Table.Th>
              <Table.Th scope="col">{t('orders.columns.state')}</Table.Th>
              <SortHeader field="userId" input={input} onSort={onSort} />
              <SortHeader field="dateCreated" input={input} onSort={onSort} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((order) => (
              <Table.Tr key={order.orderId} data-order-id={order.orderId} data-order-number={order.orderNumber}>
                <Table.Td>
                  <Anchor component={Link} to={`/orders/${order.orderId}`} c="green.9" ff="monospace" title={order.orderId}>
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
            {orders.data && rows.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={8}>
                  <Text c="dimmed" ta="center">
                    {t('orders.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between">
        {totalPages > 1 ? (
          <ListPagination
            total={totalPages}
            value={Math.min(input.pageNum, totalPages)}
            onChange={(pageNum) => setParams(orderListSearch({ ...input, pageNum }))}
          />
        ) : (
          <span />
        )}
        <Select
          label={t('orders.pageSize')}
          data={pageSizes}
          value={String(input.numberOfItems)}
          allowDeselect={false}
          w={120}
          onChange={(value) => update({ numberOfItems: Number(value ?? 10) })}
        />
      </Group>
      <Modal
        opened={adding}
        onClose={() => setAdding(false)}
        title={t('orders.add.title')}
        size="xl"
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        {adding ? <AddOrderForm onCancel={() => setAdding(false)} /> : null}
      </Modal>
    </Stack>
  );
}
