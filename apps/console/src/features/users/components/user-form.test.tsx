import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TUserProfile } from '@manifold/contract';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { describedBy } from '../../../test/described-by';
import { renderWithProviders } from '../../../test/render';
import { seedAdminSession } from '../../../test/session';
import { UserForm } from './user-form';

const user: TUserProfile = {
  username: 'mona',
  firstName: 'Mona',
  lastName: 'Lisa',
  email: 'mona@example.com',
  company: null,
  role: 'USER',
  timeZone: 'UTC',
  language: 'en_US',
  useSso: false,
  dateCreated: '2026-01-01T00:00:00.000Z',
};

/** The bodies `user/edit` was sent. */
let sent: Record<string, unknown>[];
/** What `user/edit` answers: the profile, unless a test sets a refusal. */
let refusal: { status: number; body: Record<string, unknown> } | undefined;

beforeEach(() => {
  setSessionToken('token-1');
  sent = [];
  refusal = undefined;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/user/edit') {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        if (refusal) return new Response(JSON.stringify(refusal.body), { status: refusal.status });
        return new Response(JSON.stringify(user), { status: 200 });
      }
      if (pathname === '/ui/user/roles') return new Response(JSON.stringify({ data: ['ADMIN', 'USER'] }));
      return new Response(JSON.stringify({ data: [], pageNum: 1, numberOfItems: 20, totalNumOfPages: 1, totalNumOfItems: 0 }));
    }),
  );
});

function renderForm(currentUsername: string) {
  const client = seedAdminSession(new QueryClient({ defaultOptions: { queries: { retry: false } } }));
  renderWithProviders(
    <QueryClientProvider client={client}>
      <UserForm user={user} currentUsername={currentUsername} onDone={() => undefined} onCancel={() => undefined} />
    </QueryClientProvider>,
  );
}

const form = () => screen.getByRole('form', { name: 'Edit user' });

describe('the user form editing a user', () => {
  it('sends the current password with one’s own new e-mail or single sign-on turned on, not only with a new password', async () => {
    renderForm('mona');
    const current = screen.getByLabelText('Current password');
    expect(describedBy(current)).toContain('Needed to change your password, e-mail address or single sign-on');
    fireEvent.change(screen.getByRole('textbox', { name: /Email/ }), { target: { value: 'mona@example.org' } });
    fireEvent.click(screen.getByRole('switch'));
    fireEvent.change(current, { target: { value: 'my-password' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ username: 'mona', email: 'mona@example.org', useSso: true, currentPassword: 'my-password' });
    expect(sent[0]).not.toHaveProperty('password');
  });

  it('sends no current password with a change of name, nor for another user', async () => {
    renderForm('mona');
    fireEvent.change(screen.getByRole('textbox', { name: /First name/ }), { target: { value: 'Monique' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ firstName: 'Monique', email: 'mona@example.com', useSso: false });
    expect(sent[0]).not.toHaveProperty('currentPassword');
  });

  it('sends no current password with another user’s new e-mail: the server asks for an escalated session instead', async () => {
    renderForm('admin');
    expect(screen.queryByLabelText('Current password')).toBeNull();
    fireEvent.change(screen.getByRole('textbox', { name: /Email/ }), { target: { value: 'mona@example.org' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ email: 'mona@example.org' });
    expect(sent[0]).not.toHaveProperty('currentPassword');
  });

  it('shows a refused current password on its input when editing oneself', async () => {
    refusal = {
      status: 420,
      body: { errorToken: 'passwordIncorrect', errorDescription: 'Username or password is incorrect', field: 'currentPassword' },
    };
    renderForm('mona');
    fireEvent.change(screen.getByRole('textbox', { name: /Email/ }), { target: { value: 'mona@example.org' } });
    fireEvent.change(screen.getByLabelText('Current password'), { target: { value: 'wrong' } });
    fireEvent.submit(form());
    await waitFor(() =>
      // said of the current password alone (fieldErrors), not as the login's "username or password"
      expect(describedBy(screen.getByLabelText('Current password'))).toContain('The current password is incorrect'),
    );
    expect(screen.getByLabelText('Current password').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('user-form-error')).toBeNull();
    // typing another password takes the message away: it was about the one sent
    fireEvent.change(screen.getByLabelText('Current password'), { target: { value: 'another' } });
    expect(screen.getByLabelText('Current password').getAttribute('aria-invalid')).toBe('false');
    expect(describedBy(screen.getByLabelText('Current password'))).not.toContain('The current password is incorrect');
  });

  it.each([
    ['passwordIncorrect', 'The current password is incorrect'],
    ['currentPasswordRequired', 'Enter your current password to set a new one'],
  ])('shows %s above the form when editing another user, who has no current password input', async (errorToken, message) => {
    refusal = { status: 420, body: { errorToken, errorDescription: message, field: 'currentPassword' } };
    renderForm('admin');
    fireEvent.change(screen.getByRole('textbox', { name: /Email/ }), { target: { value: 'mona@example.org' } });
    fireEvent.submit(form());
    const alert = await screen.findByTestId('user-form-error');
    expect(alert.textContent).toBe(`Current password: ${message}`);
    expect(screen.queryByLabelText('Current password')).toBeNull();
  });
});
