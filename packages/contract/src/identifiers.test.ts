import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { identifierAt, ZId } from './identifiers.js';
import { ZOrderArchiveRequest, ZOrderRevokeRequest } from './licensing.js';
import { ZWorkflowReorderRequest } from './packages.js';

describe('identifierAt', () => {
  it('finds the token of an identifier field and names the field', () => {
    expect(identifierAt(ZOrderRevokeRequest, ['orderId'])).toEqual({ token: 'orderIdNotValid', field: 'orderId' });
    expect(identifierAt(ZOrderArchiveRequest, ['archiveOrders', 2, 'orderId'])).toEqual({
      token: 'orderIdNotValid',
      field: 'archiveOrders[2].orderId',
    });
    expect(identifierAt(ZWorkflowReorderRequest, ['stepIds', '0'], 'body')).toEqual({
      token: 'workflowStepNotPresent',
      field: 'body.stepIds[0]',
    });
  });

  it('looks through optional, nullable, default and pipe wrappers', () => {
    const schema = z.object({
      a: ZId('deviceIdNotValid').optional(),
      b: ZId('deviceIdNotValid').nullish().default(null),
      c: ZId('deviceIdNotValid').transform((value) => value.toUpperCase()),
    });
    for (const key of ['a', 'b', 'c']) expect(identifierAt(schema, [key])?.token).toBe('deviceIdNotValid');
  });

  it('answers undefined for a field that is not an identifier, or a path that leads nowhere', () => {
    expect(identifierAt(ZOrderRevokeRequest, ['includeAuthorized'])).toBeUndefined();
    expect(identifierAt(ZOrderRevokeRequest, [])).toBeUndefined();
    expect(identifierAt(ZOrderRevokeRequest, ['orderId', 'deeper'])).toBeUndefined();
    expect(identifierAt(ZOrderArchiveRequest, ['archiveOrders', 'x', 'orderId'])).toBeUndefined();
    expect(identifierAt(z.uuid(), [])).toBeUndefined();
  });

  it('a plain identifier schema is its own field', () => {
    expect(identifierAt(ZId('packageNotPresent'), [], 'dsiId')).toEqual({ token: 'packageNotPresent', field: 'dsiId' });
  });
});
