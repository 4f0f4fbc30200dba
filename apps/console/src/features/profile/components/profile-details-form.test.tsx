import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { describedBy } from '../../../test/described-by';
import { renderWithProviders } from '../../../test/render';
import { adminProfile, seedAdminSession } from '../../../test/session';
import { ProfileDetailsForm } from './profile-details-form';

const profile = adminProfile;

/** The bodies `user/edit` was sent; `answer` is what the server says to the next one. */
let sent: Record<string, unknown>[];
let answer: () => Response;

beforeEach(() => {
  setSessionToken('token-1');
  sent = [];
  answer = () => new Response(JSON.stringify({ ...profile, ...sent.at(-1), currentPassword: undefined }), { status: 200 });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (new URL(url, 'http://localhost').pathname === '/ui/user/edit') {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return answer();
      }
      return new Response(JSON.stringify({ data: [], pageNum: 1, numberOfItems: 20, totalNumOfPages: 1, totalNumOfItems: 0 }));
    }),
  );
});

function renderForm() {
  const client = seedAdminSession(new QueryClient({ defaultOptions: { queries: { retry: false } } }));
  renderWithProviders(
    <QueryClientProvider client={client}>
      <ProfileDetailsForm profile={profile} />
    </QueryClientProvider>,
  );
}

const form = () => screen.getByRole('button', { name: 'Save' }).closest('form')!;
const currentPassword = () => screen.queryByLabelText('Current password');

describe('the profile details form', () => {
  it('saves a change of name without asking for the password', async () => {
    renderForm();
    expect(currentPassword()).toBeNull();
    fireEvent.change(screen.getByRole('textbox', { name: /First name/ }), { target: { value: 'Grace' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ username: 'admin', firstName: 'Grace', email: 'admin@example.com' });
    expect(sent[0]).not.toHaveProperty('currentPassword');
  });

  it('asks for the current password with a new e-mail address and sends it, as the server requires', async () => {
    renderForm();
    fireEvent.change(screen.getByRole('textbox', { name: /Email/ }), { target: { value: 'ada@example.org' } });
    const input = currentPassword();
    expect(input).not.toBeNull();
    expect(describedBy(input!)).toContain('Needed to change your password, e-mail address or single sign-on');
    // the server's refusal of a missing password is shown on that input
    answer = () =>
      new Response(JSON.stringify({ errorToken: 'currentPasswordRequired', errorDescription: 'x', field: 'currentPassword' }), {
        status: 420,
      });
    fireEvent.submit(form());
    await waitFor(() => expect(input!.getAttribute('aria-invalid')).toBe('true'));
    expect(sent[0]).toMatchObject({ email: 'ada@example.org', currentPassword: '' });
    answer = () => new Response(JSON.stringify({ ...profile, email: 'ada@example.org' }), { status: 200 });
    fireEvent.change(input!, { target: { value: 'my-password' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toMatchObject({ email: 'ada@example.org', currentPassword: 'my-password' });
  });

  it('shows a current-password refusal above the form when its input is not shown (the e-mail changed elsewhere)', async () => {
    renderForm();
    answer = () =>
      new Response(
        JSON.stringify({
          errorToken: 'currentPasswordRequired',
          errorDescription: 'Enter your current password to set a new one',
          field: 'currentPassword',
        }),
        { status: 420 },
      );
    fireEvent.change(screen.getByRole('textbox', { name: /First name/ }), { target: { value: 'Grace' } });
    fireEvent.submit(form());
    await waitFor(() => expect(sent).toHaveLength(1));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe('Current password: Enter your current password to set a new one'),
    );
    expect(currentPassword()).toBeNull();
  });
});
