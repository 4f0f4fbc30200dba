import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../lib/api-errors';
import { testI18n, type TestLocale } from '../test/render';
import { apiErrorMessage, namedErrorMessage } from './api-error-message';

const malformed = new BadRequestError('malformed', 400, [
  { errorToken: 'malformedRequest', errorDescription: 'The request is malformed' },
]);

describe('the refusal of a named file or item', () => {
  it.each([
    ['en', 'bracket.stl: The request is malformed'],
    ['zh', 'bracket.stl：请求格式不正确'],
    ['es', 'bracket.stl: La solicitud está mal formada'],
  ] as const)("joins the name and the reason with the language's colon (%s)", (locale: TestLocale, said) => {
    expect(namedErrorMessage(testI18n(locale).t, 'bracket.stl', malformed)).toBe(said);
  });
});

describe('a refusal by its token', () => {
  const noneLeft = new BadRequestError('none left', 418, [
    { errorToken: 'orderHasNoMoreQuantity', errorDescription: 'The order has 0 left; 5 were asked for' },
  ]);

  it.each([
    // English keeps the server's words, with their particulars
    ['en', 'The order has 0 left; 5 were asked for'],
    // the other languages say it in theirs
    ['zh', '该订单已无剩余数量'],
    ['es', 'Al pedido no le queda cantidad'],
  ] as const)('is said in the reader’s language (%s)', (locale: TestLocale, said) => {
    expect(apiErrorMessage(testI18n(locale).t, noneLeft)).toBe(said);
  });
});

describe('several refusals at once', () => {
  const two = new BadRequestError('two', 418, [
    { errorToken: 'orderHasNoMoreQuantity', errorDescription: 'The order has 0 left; 5 were asked for' },
    { errorToken: 'malformedRequest', errorDescription: 'The request is malformed' },
  ]);

  it.each([
    ['en', 'The order has 0 left; 5 were asked for. The request is malformed.'],
    ['zh', '该订单已无剩余数量。请求格式不正确。'],
  ] as const)('are sentences one after another as the language joins them (%s)', (locale: TestLocale, said) => {
    expect(apiErrorMessage(testI18n(locale).t, two)).toBe(said);
  });
});
