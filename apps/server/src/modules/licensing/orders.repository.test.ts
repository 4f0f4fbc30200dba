import { describe, expect, it } from 'vitest';
import { servingIndex } from './orders.repository.js';

const admin = { userId: 1, role: 'ADMIN' } as const;

describe('the index that serves an order or authorization list', () => {
  it('is the one whose columns are the equalities, then the sort column, for every sort and single filter of order/list', () => {
    const cases: [filters: Record<string, string>, sort: string, index: string | undefined][] = [
      [{}, 'id', 'orders_archived_id_idx'],
      [{}, 'user_id', 'orders_archived_user_idx'],
      [{}, 'company_name', 'orders_archived_company_idx'],
      [{}, 'created_at', 'orders_archived_created_idx'],
      [{ dsiId: 'd' }, 'id', 'orders_archived_dsi_idx'],
      [{ dsiId: 'd' }, 'created_at', 'orders_archived_dsi_created_idx'],
      [{ companyName: 'c' }, 'created_at', 'orders_archived_company_created_idx'],
      [{ userId: 'u' }, 'created_at', 'orders_archived_user_created_idx'],
      // the filter fixes the sort value: the filter's index, in id order
      [{ companyName: 'c' }, 'company_name', 'orders_archived_company_idx'],
      [{ userId: 'u' }, 'user_id', 'orders_archived_user_idx'],
      [{ companyName: 'c' }, 'id', 'orders_archived_company_idx'],
      // no index has these columns: the optimiser chooses
      [{ dsiId: 'd' }, 'company_name', undefined],
      [{ companyName: 'c', userId: 'u' }, 'id', undefined],
    ];
    for (const [filters, sort, index] of cases) {
      const found = servingIndex('orders', { archived: false, ...filters }, sort, admin);
      expect(found, JSON.stringify([filters, sort])).toEqual(index && { table: 'orders', name: index });
    }
  });

  it("serves an order's authorizations sorted by order from (archived, order_id, id), each filter newest first from its own, and no index a combination it lacks", () => {
    expect(servingIndex('authorizations', { archived: true, orderId: 'o' }, 'order_id', admin)).toEqual({
      table: 'authorizations',
      name: 'authorizations_archived_id_idx',
    });
    expect(servingIndex('authorizations', { archived: false }, 'created_at', admin)?.name).toBe(
      'authorizations_archived_created_idx',
    );
    // the console's first view (newest first) with one filter (migration 034)
    for (const [filter, index] of [
      ['dsiId', 'authorizations_archived_dsi_created_idx'],
      ['companyName', 'authorizations_archived_company_created_idx'],
      ['userId', 'authorizations_archived_user_created_idx'],
    ] as const)
      expect(servingIndex('authorizations', { archived: false, [filter]: 'x' }, 'created_at', admin)?.name, filter).toBe(index);
    expect(servingIndex('authorizations', { archived: false, companyName: 'c' }, 'order_id', admin)).toBeUndefined();
    expect(servingIndex('authorizations', { archived: false, dsiId: 'd' }, 'order_id', admin)).toBeUndefined();
  });

  it("names none for one authorization and none for a USER's list (their groups' orders may be few)", () => {
    expect(servingIndex('authorizations', { archived: false, authorizationId: 'a' }, 'order_id', admin)).toBeUndefined();
    expect(servingIndex('orders', { archived: false }, 'id', { userId: 2, role: 'USER' })).toBeUndefined();
  });
});
