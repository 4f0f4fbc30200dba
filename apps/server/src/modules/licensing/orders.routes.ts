import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ORDER_SIGNATURE_HEADER,
  policyJsonSchema,
  ZOrder,
  ZOrderAddRequest,
  ZOrderArchiveRequest,
  ZOrderDetail,
  ZOrderEditGroupsRequest,
  ZOrderFetchQuery,
  ZOrderIdResponse,
  ZOrderListQuery,
  ZOrderRestoreRequest,
  ZOrderRevokeRequest,
  ZOrdersChanged,
  ZPage,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';
import { POLICY_FIELD } from './policy-check.js';

/** An uploaded policy list is JSON of at most this many bytes. */
const POLICY_MAX_BYTES = 2 * 1024 * 1024;

/** The multipart form of `order/upload`. */
const ZOrderUploadForm = z.object({
  file: z.string().meta({ format: 'binary', description: 'JSON of the policy list, as order/add takes it' }),
});

/** Orders: added from a policy list (console, upload, signed partner call), listed, archived, grouped, revoked. */
export const ordersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { orders } = app.services;
  const tags = ['orders'];

  app.get(
    '/ui/order/policy-schema',
    { schema: { tags, summary: 'JSON Schema of the authorized policy list (what order/add and order/upload take)' } },
    () => policyJsonSchema(),
  );

  app.post(
    '/ui/order/add',
    {
      schema: {
        tags,
        summary: 'Add an order from an authorized policy list (see order/policy-schema)',
        body: ZOrderAddRequest,
        response: responses(ZOrderIdResponse),
      },
    },
    (request) => {
      const caller = callerOf(request);
      return orders.add(request.body.authorizationAuthorizedPolicyList, { source: 'ui', caller });
    },
  );

  app.post(
    '/ui/order/upload',
    {
      config: { multipartForm: ZOrderUploadForm },
      schema: {
        tags,
        summary: 'Add an order from a policy list file (multipart: file = JSON of the policy list)',
        consumes: ['multipart/form-data'],
        response: responses(ZOrderIdResponse),
      },
    },
    async (request) => {
      const file = requiredFile(await readSmallForm(request, POLICY_MAX_BYTES));
      // held to what order/add holds its body to, its values named as there
      const policy = parseCarryableJson(
        file.toString('utf8'),
        POLICY_FIELD,
        (reason) =>
          new AppError('authorizedPolicyListNotFormattedCorrectly', {
            field: 'file',
            description: `The file is not JSON: ${reason}`,
          }),
      );
      return orders.add(policy, { source: 'upload', caller: callerOf(request) });
    },
  );

  app.post(
    '/apl/order/add',
    {
      schema: {
        tags: ['partner'],
        summary: `An upstream sender adds an order: body {${POLICY_FIELD}}, signed (detached JWS over its canonical JSON, x5t#S256 of a trusted sender certificate) in the ${ORDER_SIGNATURE_HEADER} header`,
        body: ZOrderAddRequest,
        response: responses(ZOrderIdResponse),
      },
    },
    (request) => {
      const header = request.headers[ORDER_SIGNATURE_HEADER];
      return orders.addSigned(request.body, typeof header === 'string' ? header : undefined, request.ip);
    },
  );

  app.get(
    '/ui/order/list',
    {
      schema: {
        tags,
        summary: 'Orders, paged (sortBy orderId|userId|companyName|dateCreated; filters; archived switch)',
        querystring: ZOrderListQuery,
        response: responses(ZPage(ZOrder)),
      },
    },
    (request) => orders.list(request.query, callerOf(request)),
  );

  app.get(
    '/ui/order/fetch',
    {
      schema: {
        tags,
        summary:
          'An order with its groups, a page of its authorizations (pageNum, numberOfItems), remaining quantity and history (newest first)',
        querystring: ZOrderFetchQuery,
        response: responses(ZOrderDetail),
      },
    },
    (request) => orders.fetch(request.query, callerOf(request)),
  );

  app.post(
    '/ui/order/archive',
    {
      schema: {
        tags,
        summary: 'Archive orders (and their authorizations)',
        body: ZOrderArchiveRequest,
        response: responses(ZOrdersChanged),
      },
    },
    (request) =>
      orders.setArchived(
        request.body.archiveOrders.map((entry) => entry.orderId),
        true,
        callerOf(request),
      ),
  );

  app.post(
    '/ui/order/restore',
    { schema: { tags, summary: 'Restore archived orders', body: ZOrderRestoreRequest, response: responses(ZOrdersChanged) } },
    (request) =>
      orders.setArchived(
        request.body.restoreOrders.map((entry) => entry.orderId),
        false,
        callerOf(request),
      ),
  );

  app.post(
    '/ui/order/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an order; includeAuthorized also revokes its authorizations and returns their quantity',
        body: ZOrderRevokeRequest,
        response: responses(ZOrder),
      },
    },
    (request) => orders.revoke(request.body, callerOf(request)),
  );

  app.post(
    '/ui/order/edit-groups',
    {
      schema: {
        tags,
        summary: 'Set the groups an order is shared with (their USERs see it)',
        body: ZOrderEditGroupsRequest,
        response: responses(ZOrderDetail),
      },
    },
    (request) => orders.editGroups(request.body, callerOf(request)),
  );
};
