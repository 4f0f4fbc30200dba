import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BadRequestError, errorFromResponse } from '../lib/api-errors';
import { testI18n, type TestLocale } from '../test/render';
import { apiErrorMessage, formErrorsFrom, namedErrorMessage } from './api-error-message';

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

describe('a refusal naming a field, placed on a form', () => {
  const { t } = testI18n('en');
  const fields = ['name', 'ssoUrl'];

  it('lands on that input whether the schema refused it (400) or a business rule (420, 418)', () => {
    const schema = errorFromResponse(400, {
      errorToken: 'malformedRequest',
      errorDescription: 'body/ssoUrl: Too big: expected string to have <=512 characters',
      field: 'ssoUrl',
    });
    expect(formErrorsFrom(t, schema, fields)).toEqual({ fields: { ssoUrl: 'The request is malformed' }, general: [] });
    const rule = errorFromResponse(420, { errorToken: 'ssoProviderInvalid', errorDescription: 'x', field: 'ssoUrl' });
    expect(formErrorsFrom(t, rule, fields).fields).toEqual({ ssoUrl: 'The identity provider settings are not valid' });
    const several = errorFromResponse(418, {
      data: [
        { errorToken: 'malformedRequest', errorDescription: 'x', field: 'ssoUrl' },
        { errorToken: 'ssoProviderInvalid', errorDescription: 'name is required', field: 'name' },
      ],
    });
    expect(formErrorsFrom(t, several, fields).fields).toEqual({
      ssoUrl: 'The request is malformed',
      name: 'The identity provider settings are not valid',
    });
  });

  it('goes above the form when it names no field, or one the form does not show', () => {
    const unnamed = errorFromResponse(400, { errorToken: 'malformedRequest', errorDescription: 'body: Invalid input' });
    expect(formErrorsFrom(t, unnamed, fields)).toEqual({ fields: {}, general: ['The request is malformed'] });
    const elsewhere = errorFromResponse(400, {
      errorToken: 'malformedRequest',
      errorDescription: 'body/redirectUri: Too big',
      field: 'redirectUri',
    });
    expect(formErrorsFrom(t, elsewhere, fields, {}, { redirectUri: 'Redirect URI' })).toEqual({
      fields: {},
      general: ['Redirect URI: The request is malformed'],
    });
  });
});

describe('input the console refuses to send (a ZodError of an api wrapper)', () => {
  const { t } = testI18n('en');
  const ZInput = z.object({
    name: z.string().max(3),
    credentials: z.object({ awsStorageEndpoint: z.string().max(5) }),
    batch: z.array(z.object({ deviceId: z.string() })),
  });
  const refused = ZInput.safeParse({
    name: 'long name',
    credentials: { awsStorageEndpoint: 'http://long' },
    batch: [{ deviceId: 7 }],
  }).error;

  it('is said as the server says a malformed request, not as a failure of the console', () => {
    expect(apiErrorMessage(t, ZInput.shape.credentials.safeParse({ awsStorageEndpoint: 'http://long' }).error)).toBe(
      'The request is malformed',
    );
    expect(apiErrorMessage(testI18n('zh').t, z.string().safeParse(1).error)).toBe('请求格式不正确');
    expect(apiErrorMessage(t, new Error('boom'))).toBe('Oops! Something went wrong. Try again later.');
  });

  it.each([
    ['en', 'The request is malformed'],
    ['zh', '请求格式不正确'],
  ] as const)('says a fault once however many properties are at fault, outside a form (%s)', (locale, said) => {
    expect(refused?.issues.length).toBe(3);
    expect(apiErrorMessage(testI18n(locale).t, refused)).toBe(said);
  });

  it('lands on each input its issues name, the fields named as the server names them', () => {
    expect(formErrorsFrom(t, refused, ['name', 'credentials.awsStorageEndpoint'], {}, { 'batch[0].deviceId': 'Device' })).toEqual(
      {
        fields: { name: 'The request is malformed', 'credentials.awsStorageEndpoint': 'The request is malformed' },
        general: ['Device: The request is malformed'],
      },
    );
  });
});
