import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setTestConsoleConfig } from '../../../test/console-config';
import { describedBy } from '../../../test/described-by';
import { renderLogin } from '../../../test/login-screen';

/** The login call refuses with `status` and `body`; nothing else answers. */
function refuseLogin(status: number, body: unknown): void {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname !== '/ui/user/login') return new Response('{}', { status: 404 });
      return Response.json(body, { status });
    }),
  );
}

/** As the server refuses an empty form: one problem per field. */
const emptyForm = {
  data: [
    { errorToken: 'usernameEmpty', errorDescription: 'Username is required', field: 'username' },
    { errorToken: 'userHasNoPassword', errorDescription: 'The user has no password', field: 'password' },
  ],
};

beforeEach(() => setTestConsoleConfig());
afterEach(() => vi.unstubAllGlobals());

describe('the login form', () => {
  it.each([
    ['en', 'Username', 'Password', 'Log in', 'Username is required', 'A password is required'],
    ['zh', '用户名', '密码', '登录', '用户名为必填项', '密码为必填项'],
  ] as const)(
    'marks each field the server refused and describes it by its refusal (%s)',
    async (locale, user, password, submit, userRefusal, passwordRefusal) => {
      refuseLogin(418, emptyForm);
      renderLogin(locale);
      fireEvent.click(screen.getByRole('button', { name: submit }));
      const username = screen.getByRole('textbox', { name: user });
      await waitFor(() => expect(username.getAttribute('aria-invalid')).toBe('true'));
      expect(describedBy(username)).toBe(userRefusal);
      const secret = screen.getByLabelText(password, { exact: false, selector: 'input' });
      expect(secret.getAttribute('aria-invalid')).toBe('true');
      expect(describedBy(secret)).toBe(passwordRefusal);
      // what belongs to a field is said there, not again for the whole form
      expect(screen.queryByTestId('login-error')).toBeNull();
    },
  );

  it('says wrong credentials above the form, naming neither field', async () => {
    refuseLogin(420, {
      errorToken: 'passwordIncorrect',
      errorDescription: 'Username or password is incorrect',
      field: 'password',
    });
    renderLogin('zh');
    fireEvent.click(screen.getByRole('button', { name: '登录' }));
    await waitFor(() => expect(screen.getByTestId('login-error').textContent).toBe('用户名或密码不正确'));
    expect(screen.getByRole('textbox', { name: '用户名' }).getAttribute('aria-invalid')).toBe('false');
    expect(screen.getByLabelText('密码', { exact: false, selector: 'input' }).getAttribute('aria-invalid')).toBe('false');
  });
});
