import { ZAuthorization, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { orderListQuery, ZOrderListInput } from '../../../lib/order-list';
import { pagedListQueryOptions } from '../../../lib/paging';

/** The order list's sorting, filters and paging plus orderId and authorizationId (spec §7). */
export const ZGetAuthorizationsInput = ZOrderListInput.extend({
  orderId: z.string().optional(),
  authorizationId: z.string().optional(),
});
export type GetAuthorizationsInput = z.infer<typeof ZGetAuthorizationsInput>;

const ZAuthorizationPage = ZPage(ZAuthorization);

export function getAuthorizations(input: GetAuthorizationsInput, signal?: AbortSignal) {
  const query = orderListQuery(ZGetAuthorizationsInput.parse(input));
  return apiRequest('GET /ui/authorization/list', ZAuthorizationPage, { query, signal });
}

export function authorizationListQueryOptions(input: GetAuthorizationsInput) {
  return pagedListQueryOptions(['authorizations', 'list', input], (signal) => getAuthorizations(input, signal), 'licensing');
}

export function useAuthorizations(input: GetAuthorizationsInput) {
  return useQuery(authorizationListQueryOptions(input));
}
