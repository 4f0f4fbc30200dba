import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/api-errors';
import { renderWithProviders, testI18n, type TestLocale } from '../../../test/render';
import { AddOrderForm, policyProblems } from './add-order-form';
import { jsonErrorOffset, jsonProblem } from './json-problem';

function renderForm(locale: TestLocale = 'en') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <AddOrderForm onCancel={() => {}} />
      </MemoryRouter>
    </QueryClientProvider>,
    { locale },
  );
}

/** The problems shown once `text` is pasted and sent. */
function sent(text: string): string {
  fireEvent.change(screen.getByRole('textbox'), { target: { value: text } });
  fireEvent.submit(screen.getByRole('textbox').closest('form')!);
  return screen.getByTestId('add-order-problems').textContent ?? '';
}

describe('the add-order form', () => {
  it.each([
    ['en', 'This is not JSON: something is wrong at line 2, column 10.', 'This is not JSON: the text ends before the JSON does.'],
    ['zh', '这不是 JSON：第 2 行第 10 列有误。', '这不是 JSON：文本在 JSON 结束之前就结束了。'],
    ['es', 'Esto no es JSON: hay un error en la línea 2, columna 10.', 'Esto no es JSON: el texto termina antes que el JSON.'],
  ] as const)(
    'says in the language (%s) where pasted text stops being JSON, not in the browser’s English',
    (locale, wrong, unfinished) => {
      renderForm(locale);
      // a comma before the closing brace, on the second line
      expect(sent('{\n  "a": 1,}')).toBe(wrong);
      expect(sent('{"a": [1, 2')).toBe(unfinished);
    },
  );

  it('sets only the pasted JSON in the monospace font, not the label and help above it', () => {
    renderForm();
    const input = screen.getByRole('textbox', { name: /Authorized policy list/ });
    expect(input.style.fontFamily).toBe('var(--mantine-font-family-monospace)');
    const root = input.closest('.mantine-Textarea-root');
    expect(root).toBeTruthy();
    expect((root as HTMLElement).style.fontFamily).toBe('');
  });
});

describe("the add-order form's refusals", () => {
  const refused = new BadRequestError('invalid', 418, [
    {
      errorToken: 'authorizedPolicyListInvalid',
      errorDescription: 'deviceParameters[0].min: Too small',
      field: 'authorizationAuthorizedPolicyList.deviceParameters[0].min',
    },
    {
      errorToken: 'authorizedPolicyListInvalid',
      errorDescription: 'Not a policy list',
      field: 'authorizationAuthorizedPolicyList',
    },
    { errorToken: 'payloadTooLarge', errorDescription: 'file may have at most 1 MiB', field: 'file' },
  ]);

  it.each([
    // English keeps the server's words, naming the place once
    ['en', ['deviceParameters[0].min: Too small', 'Not a policy list', 'file may have at most 1 MiB']],
    ['zh', ['deviceParameters[0].min：授权策略列表无效', '授权策略列表无效', '请求过大']],
  ] as const)(
    "name the place in the pasted list as the language writes a label, and the form's own fields not at all (%s)",
    (locale, lines) => {
      expect(policyProblems(testI18n(locale).t, refused)).toEqual(lines);
    },
  );
});

describe('where a text stops being JSON', () => {
  const parses = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with JSON.parse on what is JSON', () => {
    const samples = [
      '{}',
      ' [ ] ',
      '{"a": [1, -2.5e+3, 0, true, false, null, "x\\n\\u00e9\\"\\\\\\/"], "b": {"c": {}}}',
      '"\u00e9"',
      '-0',
      '1E5',
      '{"a": 1,}',
      '[1,]',
      '[01]',
      '[1.]',
      '[.5]',
      '[-]',
      '[1e]',
      "{'a': 1}",
      '{"a" 1}',
      '{"a": 1 "b": 2}',
      '["\\x"]',
      '["\\u12G4"]',
      '["a\tb"]',
      '[tru]',
      '[nul',
      '{} {}',
      '\uFEFF{}',
      '',
      '   ',
      '{"a":',
      '"open',
      '[[[[]]]',
      '[[]]]',
    ];
    for (const text of samples) expect(jsonErrorOffset(text) === null, text).toBe(parses(text));
  });

  it('names the first character JSON does not allow, or the end of a text cut short', () => {
    expect(jsonProblem('{"a": 1}')).toBeNull();
    expect(jsonProblem('{"a": 1,}')).toEqual({ at: 'place', line: 1, column: 9 });
    expect(jsonProblem('[\n  1,\n  02\n]')).toEqual({ at: 'place', line: 3, column: 4 });
    expect(jsonProblem('{"é": x}')).toEqual({ at: 'place', line: 1, column: 7 });
    // characters beyond the 16-bit range count as one column, as they read
    expect(jsonProblem('["😀", x]')).toEqual({ at: 'place', line: 1, column: 7 });
    expect(jsonProblem('{"a": [1, 2')).toEqual({ at: 'end' });
    expect(jsonProblem('"\\u12')).toEqual({ at: 'end' });
    // nested deeper than a recursive reader could go
    expect(jsonProblem('['.repeat(200_000))).toEqual({ at: 'end' });
    expect(jsonProblem(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBeNull();
  });
});
