import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contract from './index.js';

/**
 * Every contract object that takes the paging parameters (query strings and JSON bodies alike):
 * those that default them when absent (a page answered says which page it is, without a default).
 */
const pagedSchemas = Object.entries(contract).filter(
  (entry): entry is [string, z.ZodObject] =>
    entry[1] instanceof z.ZodObject &&
    'pageNum' in entry[1].shape &&
    'numberOfItems' in entry[1].shape &&
    entry[1].shape.pageNum!.safeParse(undefined).success,
);

describe('paging parameters', () => {
  it('are taken by the lists of the contract', () => {
    const names = pagedSchemas.map(([name]) => name);
    for (const name of [
      'ZPageQuery',
      'ZUserListQuery',
      'ZDeviceListQuery',
      'ZOrderListQuery',
      'ZOrderFetchQuery',
      'ZStpPageBody',
    ])
      expect(names).toContain(name);
  });

  // `Number()` read `0x10` as 16 and let signs, spaces, fractions and exponents through
  it.each(['0x10', '+5', ' 5', '5 ', '-1', '5.0', '1e1', '0b11', '0o7', '', '5a', '٥', '１'])(
    'refuse %j on every list, naming the parameter',
    (value) => {
      for (const [name, schema] of pagedSchemas) {
        for (const parameter of ['pageNum', 'numberOfItems']) {
          const parsed = schema.safeParse({ [parameter]: value });
          expect(parsed.success, `${name}.${parameter} = ${JSON.stringify(value)}`).toBe(false);
          expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(parameter);
        }
      }
    },
  );

  it('take decimal digits (a query string) and whole JSON numbers (a body), and default when absent', () => {
    for (const [name, schema] of pagedSchemas) {
      const shape = z.object({ pageNum: schema.shape.pageNum!, numberOfItems: schema.shape.numberOfItems! });
      expect(shape.parse({ pageNum: '16', numberOfItems: '5' }), name).toEqual({ pageNum: 16, numberOfItems: 5 });
      expect(shape.parse({ pageNum: '007', numberOfItems: '500' }), name).toEqual({ pageNum: 7, numberOfItems: 500 });
      expect(shape.parse({ pageNum: 3, numberOfItems: 20 }), name).toEqual({ pageNum: 3, numberOfItems: 20 });
      expect(shape.parse({}), name).toEqual({ pageNum: 1, numberOfItems: 10 });
      for (const bad of [
        { pageNum: '0' },
        { numberOfItems: '501' },
        { pageNum: 1.5 },
        { pageNum: '1000000001' },
        { pageNum: true },
      ])
        expect(shape.safeParse(bad).success, `${name} ${JSON.stringify(bad)}`).toBe(false);
    }
  });
});
