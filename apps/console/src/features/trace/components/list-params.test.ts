import { describe, expect, it } from 'vitest';
import { listSearch, listStateFrom } from './list-params';

describe('trace list state in the address', () => {
  it('reads paging and the named filters, defaults for what is missing or wrong', () => {
    expect(listStateFrom(new URLSearchParams('pageNum=3&numberOfItems=25&dsiId=%20abc%20&other=x'), ['dsiId'])).toEqual({
      pageNum: 3,
      numberOfItems: 25,
      dsiId: 'abc',
    });
    expect(listStateFrom(new URLSearchParams('pageNum=0&numberOfItems=9999&dsiId=%20'), ['dsiId'])).toEqual({
      pageNum: 1,
      numberOfItems: 10,
    });
  });

  it('writes only what differs from the defaults', () => {
    expect(listSearch({ pageNum: 1, numberOfItems: 10, dsiId: undefined, actor: '' }).toString()).toBe('');
    expect(listSearch({ pageNum: 2, numberOfItems: 50, actor: 'ada' }).toString()).toBe('pageNum=2&numberOfItems=50&actor=ada');
  });
});
