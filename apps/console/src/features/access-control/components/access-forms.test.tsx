import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { ReactElement } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { describedBy } from '../../../test/described-by';
import { seedAdminSession } from '../../../test/session';
import { PolicyForm } from './policy-form';
import { RoleForm } from './role-form';

/** The paths the forms posted to. */
let posted: string[];

beforeEach(() => {
  setSessionToken('token-1');
  posted = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (init?.method === 'POST') {
        posted.push(pathname);
        // what the server answers a policy or role without its required lists
        return new Response(JSON.stringify({ errorToken: 'malformedRequest', errorDescription: 'body/roleMembers: Too small' }), {
          status: 400,
        });
      }
      return new Response(JSON.stringify({ data: [], pageNum: 1, numberOfItems: 20, totalNumOfPages: 1, totalNumOfItems: 0 }), {
        status: 200,
      });
    }),
  );
});

function renderForm(form: ReactElement, locale: TestLocale) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  seedAdminSession(client);
  renderWithProviders(<QueryClientProvider client={client}>{form}</QueryClientProvider>, { locale });
}

describe('the access policy and role forms', () => {
  it.each([
    [
      'en',
      'Add access policy',
      'Policy name',
      'Give the policy a name',
      'Choose at least one constraint',
      'Incoming IP addresses',
    ],
    ['zh', '添加访问策略', '策略名称', '请填写策略名称', '请至少选择一个约束', '来源 IP 地址'],
  ] as const)(
    'say on its inputs what an empty policy lacks instead of sending it to be refused as malformed (%s)',
    async (locale, formName, nameLabel, nameMissing, constraintsMissing, rangesLabel) => {
      renderForm(<PolicyForm onDone={() => undefined} onCancel={() => undefined} />, locale);
      fireEvent.submit(screen.getByRole('form', { name: formName }));
      await waitFor(() => expect(describedBy(screen.getByRole('textbox', { name: nameLabel }))).toContain(nameMissing));
      expect(screen.getByText(constraintsMissing)).toBeTruthy();
      expect(screen.getByRole('textbox', { name: rangesLabel }).getAttribute('aria-invalid')).toBe('true');
      expect(screen.queryByText(locale === 'en' ? 'The request is malformed' : '请求格式不正确')).toBeNull();
      expect(posted).toEqual([]);
    },
  );

  it.each([
    ['en', 'Add access role', 'Members', 'Choose at least one member'],
    ['zh', '添加访问角色', '成员', '请至少选择一名成员'],
  ] as const)(
    'marks a role’s members required and says so when none is chosen (%s)',
    async (locale, formName, label, missing) => {
      renderForm(<RoleForm onDone={() => undefined} onCancel={() => undefined} />, locale);
      const members = screen.getByRole('textbox', { name: label });
      // the asterisk the other required inputs show
      expect(document.querySelector(`label[for="${members.id}"]`)?.textContent).toContain('*');
      fireEvent.submit(screen.getByRole('form', { name: formName }));
      await waitFor(() => expect(describedBy(members)).toContain(missing));
      expect(posted).toEqual([]);
    },
  );
});
