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

  it('leaves out a day filter that is no day of the calendar', () => {
    const params = new URLSearchParams('fromDay=2026-02-30&toDay=2026-03-01&actor=ada');
    expect(listStateFrom(params, ['fromDay', 'toDay', 'actor'], ['fromDay', 'toDay'])).toEqual({
      pageNum: 1,
      numberOfItems: 10,
      toDay: '2026-03-01',
      actor: 'ada',
    });
    // not a day filter: kept as written
    expect(listStateFrom(params, ['fromDay'])).toMatchObject({ fromDay: '2026-02-30' });
  });

  it('writes only what differs from the defaults', () => {
    expect(listSearch({ pageNum: 1, numberOfItems: 10, dsiId: undefined, actor: '' }).toString()).toBe('');
    expect(listSearch({ pageNum: 2, numberOfItems: 50, actor: 'ada' }).toString()).toBe('pageNum=2&numberOfItems=50&actor=ada');
  });
});
