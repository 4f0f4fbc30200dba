import { describe, expect, it } from 'vitest';
import { orderListInputFrom, orderListQuery, orderListSearch, type OrderListDefaults } from './order-list';

const defaults: OrderListDefaults = {
  pageNum: 1,
  numberOfItems: 10,
  sortBy: 'orderId',
  sortOrder: 'asc',
  filterByArchived: false,
};

describe('order list address', () => {
  it('reads paging, sorting, the archived switch and the named text filters (trimmed)', () => {
    const params = new URLSearchParams(
      'pageNum=3&numberOfItems=25&sortBy=companyName&sortOrder=desc&filterByArchived=true&filterByUserId=%20eve%20&orderId=x',
    );
    expect(orderListInputFrom(params, defaults, ['filterByUserId', 'filterByDsiId'])).toEqual({
      pageNum: 3,
      numberOfItems: 25,
      sortBy: 'companyName',
      sortOrder: 'desc',
      filterByArchived: true,
      filterByUserId: 'eve',
    });
  });

  it('falls back to the defaults for what it does not know and leaves out blank filters', () => {
    const params = new URLSearchParams('pageNum=0&numberOfItems=501&sortBy=nope&sortOrder=up&filterByDsiId=%20');
    expect(orderListInputFrom(params, { ...defaults, sortOrder: 'desc' }, ['filterByDsiId'])).toEqual({
      ...defaults,
      sortOrder: 'desc',
    });
  });

  it('writes only what differs from the defaults and is not blank', () => {
    const search = orderListSearch({ ...defaults, pageNum: 2, filterByCompanyName: 'Acme', filterByUserId: '' }, defaults);
    expect(search.toString()).toBe('pageNum=2&filterByCompanyName=Acme');
  });

  it('sends blank filters as absent', () => {
    expect(orderListQuery({ pageNum: 1, filterByDsiId: '', filterByUserId: 'eve' })).toEqual({
      pageNum: 1,
      filterByDsiId: null,
      filterByUserId: 'eve',
    });
  });
});
