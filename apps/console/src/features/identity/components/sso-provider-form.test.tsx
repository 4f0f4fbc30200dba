import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { setTestConsoleConfig } from '../../../test/console-config';
import { describedBy } from '../../../test/described-by';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { SsoProviderForm } from './sso-provider-form';

/** The save call refuses with `body` (418 by default: one problem per field); nothing else answers. */
function refuseSave(body: unknown, status = 418): void {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname !== '/ui/admin/sso/provider') return new Response('{}', { status: 404 });
      return Response.json(body, { status });
    }),
  );
}

function renderForm(locale: TestLocale) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <SsoProviderForm onDone={() => undefined} onCancel={() => undefined} />
    </QueryClientProvider>,
    { locale },
  );
}

beforeEach(() => {
  setTestConsoleConfig();
  setSessionToken('token-1');
});
afterEach(() => vi.unstubAllGlobals());

describe('the identity provider form', () => {
  it.each([
    [
      'en',
      'Name',
      'Save',
      'The identity provider settings are not valid',
      'Redirect URI: The identity provider settings are not valid',
    ],
    ['zh', '名称', '保存', '身份提供方的设置无效', '重定向 URI：身份提供方的设置无效'],
  ] as const)(
    'says a refusal of a field it does not show (SAML: the redirect address) above the form, by its label (%s)',
    async (locale, nameLabel, save, nameRefusal, redirectRefusal) => {
      // a SAML provider's redirect address is the server's own (its PUBLIC_URL): the form has no input for it
      refuseSave({
        data: [
          { errorToken: 'ssoProviderInvalid', errorDescription: 'name is required', field: 'name' },
          {
            errorToken: 'ssoProviderInvalid',
            errorDescription: 'redirectUri must be an absolute http(s) address',
            field: 'redirectUri',
          },
        ],
      });
      renderForm(locale);
      fireEvent.click(screen.getByText('SAML 2.0'));
      fireEvent.click(screen.getByRole('button', { name: save }));
      const name = screen.getByRole('textbox', { name: nameLabel });
      await waitFor(() => expect(describedBy(name)).toBe(nameRefusal));
      expect(screen.getByRole('alert').textContent).toBe(redirectRefusal);
      expect(screen.getByRole('alert').textContent).not.toContain('redirectUri');
    },
  );

  it.each([
    ['en', 'Single sign-on address (redirect binding)', 'Save', 'The request is malformed'],
    ['zh', '单点登录地址（重定向绑定）', '保存', '请求格式不正确'],
  ] as const)(
    'shows a request its schema refuses (400 naming the field) on that input, as a business error (%s)',
    async (locale, ssoUrlLabel, save, refusal) => {
      refuseSave(
        {
          errorToken: 'malformedRequest',
          errorDescription: 'body/ssoUrl: Too big: expected string to have <=512 characters',
          field: 'ssoUrl',
        },
        400,
      );
      renderForm(locale);
      fireEvent.click(screen.getByText('SAML 2.0'));
      fireEvent.click(screen.getByRole('button', { name: save }));
      const ssoUrl = screen.getByRole('textbox', { name: ssoUrlLabel });
      await waitFor(() => expect(describedBy(ssoUrl)).toBe(refusal));
      expect(ssoUrl.getAttribute('aria-invalid')).toBe('true');
      expect(screen.queryByRole('alert')).toBeNull();
    },
  );
});
