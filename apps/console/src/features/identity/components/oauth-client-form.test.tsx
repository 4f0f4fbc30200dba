import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { OauthClientForm } from './oauth-client-form';

function renderForm(locale: TestLocale) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <OauthClientForm onDone={() => undefined} onCancel={() => undefined} />
    </QueryClientProvider>,
    { locale },
  );
}

/** The texts the input is described by (its description and error). */
function describedBy(element: HTMLElement): string[] {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '');
}

describe('the form adding an OAuth client', () => {
  it.each([
    [
      'en',
      'Redirect URIs',
      'One or more absolute http(s) addresses, comma-delimited, no spaces',
      'Scopes',
      'Comma-delimited, no spaces',
    ],
    ['zh', '重定向 URI', '一个或多个绝对 http(s) 地址，以逗号分隔，不含空格', '范围', '以逗号分隔，不含空格'],
  ] as const)(
    'says how to write the redirect addresses the server requires, as it says for its other lists (%s)',
    (locale, redirectLabel, redirectHint, scopeLabel, listHint) => {
      renderForm(locale);
      expect(describedBy(screen.getByRole('textbox', { name: redirectLabel }))).toContain(redirectHint);
      expect(describedBy(screen.getByRole('textbox', { name: scopeLabel }))).toContain(listHint);
    },
  );
});
