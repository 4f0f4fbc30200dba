import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../lib/api-errors';
import { testI18n, type TestLocale } from '../test/render';
import { namedErrorMessage } from './api-error-message';

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
