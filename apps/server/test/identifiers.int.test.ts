import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { multipartForm } from './helpers/multipart.js';
import { describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';

/**
 * Spec §8: a malformed identifier answers the spec's token naming the field (420; 418 when
 * several), like an identifier that names nothing — not 400 `malformedRequest`. One request per
 * route that takes an identifier; everything else in each request is well formed.
 */
const bad = 'not-a-uuid';
const some = randomUUID();

interface Case {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  form?: Record<string, string | { filename: string; content: string }>;
  token: string;
  field: string;
}

const file = { filename: 'a.json', content: '{}' };

const cases: Case[] = [
  // orders and authorizations
  { method: 'GET', url: `/ui/order/list?filterByDsiId=${bad}`, token: 'packageNotPresent', field: 'filterByDsiId' },
  { method: 'GET', url: `/ui/order/fetch?orderId=${bad}`, token: 'orderIdNotValid', field: 'orderId' },
  {
    method: 'POST',
    url: '/ui/order/archive',
    body: { archiveOrders: [{ orderId: some }, { orderId: bad }] },
    token: 'orderIdNotValid',
    field: 'archiveOrders[1].orderId',
  },
  {
    method: 'POST',
    url: '/ui/order/restore',
    body: { restoreOrders: [{ orderId: bad }] },
    token: 'orderIdNotValid',
    field: 'restoreOrders[0].orderId',
  },
  { method: 'POST', url: '/ui/order/revoke', body: { orderId: bad }, token: 'orderIdNotValid', field: 'orderId' },
  {
    method: 'POST',
    url: '/ui/order/edit-groups',
    body: { orderId: bad, groupIds: [] },
    token: 'orderIdNotValid',
    field: 'orderId',
  },
  { method: 'GET', url: `/ui/authorization/list?orderId=${bad}`, token: 'orderIdNotValid', field: 'orderId' },
  {
    method: 'GET',
    url: `/ui/authorization/list?authorizationId=${bad}`,
    token: 'invalidOrderAndAuthorizationIdCombination',
    field: 'authorizationId',
  },
  {
    method: 'POST',
    url: '/ui/authorization/send',
    body: { orderId: some, authorizationId: bad },
    token: 'invalidOrderAndAuthorizationIdCombination',
    field: 'authorizationId',
  },
  {
    method: 'POST',
    url: '/ui/authorization/revoke',
    body: { orderId: bad, authorizationId: some },
    token: 'orderIdNotValid',
    field: 'orderId',
  },
  {
    method: 'GET',
    url: `/ui/authorization/download?orderId=${some}&authorizationId=${bad}`,
    token: 'invalidOrderAndAuthorizationIdCombination',
    field: 'authorizationId',
  },
  { method: 'GET', url: `/ui/enforce/order/list?deviceId=${bad}`, token: 'deviceIdNotValid', field: 'deviceId' },
  { method: 'GET', url: `/ui/dtl/list?orderId=${bad}`, token: 'orderIdNotValid', field: 'orderId' },
  // design packages
  { method: 'GET', url: `/ui/package/fetch?dsiId=${bad}`, token: 'packageNotPresent', field: 'dsiId' },
  { method: 'POST', url: '/ui/package/info', body: { dsiId: bad, version: 1 }, token: 'packageNotPresent', field: 'dsiId' },
  { method: 'POST', url: '/ui/package/delete', body: { dsiId: bad }, token: 'packageNotPresent', field: 'dsiId' },
  { method: 'POST', url: '/ui/package/build', body: { dsiId: bad }, token: 'packageNotPresent', field: 'dsiId' },
  {
    method: 'POST',
    url: '/ui/package/workflow/add',
    body: { dsiId: bad, type: 'manual', instructions: 'x' },
    token: 'packageNotPresent',
    field: 'dsiId',
  },
  {
    method: 'POST',
    url: '/ui/package/workflow/edit',
    body: { dsiId: some, workflowStepId: bad },
    token: 'workflowStepNotPresent',
    field: 'workflowStepId',
  },
  {
    method: 'POST',
    url: '/ui/package/workflow/delete',
    body: { dsiId: some, workflowStepId: bad },
    token: 'workflowStepNotPresent',
    field: 'workflowStepId',
  },
  {
    method: 'POST',
    url: '/ui/package/workflow/reorder',
    body: { dsiId: some, stepIds: [some, bad] },
    token: 'workflowStepNotPresent',
    field: 'stepIds[1]',
  },
  {
    method: 'POST',
    url: '/ui/package/files/upload',
    form: { dsiId: bad, isPublic: 'true', file },
    token: 'packageNotPresent',
    field: 'dsiId',
  },
  {
    method: 'POST',
    url: '/ui/package/files/privacy',
    body: { fileId: bad, isPublic: true },
    token: 'packageFileNotPresent',
    field: 'fileId',
  },
  { method: 'POST', url: '/ui/package/files/delete', body: { fileId: bad }, token: 'packageFileNotPresent', field: 'fileId' },
  { method: 'GET', url: `/ui/package/files/download?fileId=${bad}`, token: 'packageFileNotPresent', field: 'fileId' },
  { method: 'GET', url: `/ui/package/device-template/list?dsiId=${bad}`, token: 'packageNotPresent', field: 'dsiId' },
  {
    method: 'POST',
    url: '/ui/package/device-template/import',
    form: { dsiId: bad, file },
    token: 'packageNotPresent',
    field: 'dsiId',
  },
  {
    method: 'GET',
    url: `/ui/package/device-template/fetch?deviceTemplateId=${bad}`,
    token: 'deviceTemplateNotPresent',
    field: 'deviceTemplateId',
  },
  {
    method: 'POST',
    url: '/ui/package/device-template/delete',
    body: { deviceTemplateId: bad },
    token: 'deviceTemplateNotPresent',
    field: 'deviceTemplateId',
  },
  { method: 'GET', url: `/ui/das/list?dsiId=${bad}`, token: 'packageNotPresent', field: 'dsiId' },
  // machines
  { method: 'GET', url: `/ui/device/fetch?deviceId=${bad}`, token: 'deviceIdNotValid', field: 'deviceId' },
  { method: 'POST', url: '/ui/device/approve', body: { id: bad, approve: true }, token: 'registrationNotPresent', field: 'id' },
  { method: 'POST', url: '/ui/device/disable', body: { deviceId: bad }, token: 'deviceIdNotValid', field: 'deviceId' },
  { method: 'POST', url: '/ui/device/delete', body: { deviceId: bad }, token: 'deviceIdNotValid', field: 'deviceId' },
  {
    method: 'POST',
    url: '/ui/device/image',
    form: { deviceId: bad, file: { filename: 'a.png', content: 'png' } },
    token: 'deviceIdNotValid',
    field: 'deviceId',
  },
  // machine pulls: the envelope's body is checked before its signature
  ...['/stp/authorization/download', '/stp/design/download', '/stp/upload/token'].map((url): Case => ({
    method: 'POST',
    url,
    body: {
      deviceId: some,
      timestamp: new Date().toISOString(),
      nonce: 'n'.repeat(20),
      body: url === '/stp/design/download' ? { authorizationId: bad, fileId: some } : { authorizationId: bad },
      signature: 'unsigned',
    },
    token: 'authorizationNotAvailable',
    field: 'body.authorizationId',
  })),
];

describeEachDatabase('malformed identifiers', (ctx) => {
  const send = async ({ method, url, body, form }: Pick<Case, 'method' | 'url' | 'body' | 'form'>) => {
    const token = url.startsWith('/stp/') ? undefined : await ctx().adminToken();
    if (form) {
      const multipart = multipartForm(form);
      return ctx().call(method, url, { token, body: multipart.body, headers: multipart.headers });
    }
    return ctx().call(method, url, { token, ...(body === undefined ? {} : { body }) });
  };

  it.each(cases)('$method $url answers 420 $token naming $field', async (testCase) => {
    expectToken(await send(testCase), 420, testCase.token, testCase.field);
  });

  describe('several malformed identifiers, or other faults', () => {
    it('answers 418 with one error per malformed identifier', async () => {
      const errors = expectTokens(
        await send({ method: 'POST', url: '/ui/authorization/revoke', body: { orderId: bad, authorizationId: 'x' } }),
      );
      expect(errors).toEqual([
        expect.objectContaining({ errorToken: 'orderIdNotValid', field: 'orderId' }),
        expect.objectContaining({ errorToken: 'invalidOrderAndAuthorizationIdCombination', field: 'authorizationId' }),
      ]);
    });

    it('a missing required identifier answers its token too', async () => {
      expectToken(await send({ method: 'POST', url: '/ui/order/revoke', body: {} }), 420, 'orderIdNotValid', 'orderId');
    });

    it('stays 400 malformedRequest when a field that is not an identifier is wrong as well', async () => {
      expectToken(
        await send({ method: 'POST', url: '/ui/order/revoke', body: { orderId: bad, includeAuthorized: 'yes' } }),
        400,
        'malformedRequest',
      );
      expectToken(await send({ method: 'POST', url: '/ui/device/approve', body: { id: bad } }), 400, 'malformedRequest');
    });

    it('stays 400 malformedRequest for a body that is not JSON', async () => {
      const response = await ctx().call('POST', '/ui/order/revoke', {
        token: await ctx().adminToken(),
        body: '{"orderId":',
        headers: { 'content-type': 'application/json' },
      });
      expectToken(response, 400, 'malformedRequest');
    });
  });
});
