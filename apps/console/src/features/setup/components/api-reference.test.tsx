import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exampleOpenApiDocument } from '../../../test/openapi-document';
import { renderWithProviders } from '../../../test/render';
import { ApiReference } from './api-reference';

const operation = (path: string) => document.querySelector<HTMLElement>(`[data-path="${path}"]`)!;

/** Opens the operation at `path` and returns its item. */
function open(path: string): HTMLElement {
  fireEvent.click(within(operation(path)).getByRole('button', { expanded: false }));
  return operation(path);
}

describe('ApiReference', () => {
  afterEach(() => window.history.replaceState(null, '', '/settings/api'));

  it('lists every operation by tag with its method, path and summary, and counts them', () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    expect(screen.getByTestId('api-reference-count')?.textContent).toContain('3 of 3 operations (version 1.2.3)');
    expect(screen.getAllByRole('heading', { level: 3 }).map((heading) => heading.textContent)).toEqual([
      'orders',
      'other',
      'user session',
    ]);
    expect(within(operation('/ui/order/list')).getByRole('button')?.textContent).toContain('GET/ui/order/listOrders, paged');
    expect(within(operation('/ui/user/login')).getByRole('button')?.textContent).toContain('POST/ui/user/loginLog in');
    // each tag's section is named by its heading (a tag may have spaces; ids may not)
    for (const section of document.querySelectorAll('section[data-tag]')) {
      expect(document.getElementById(section.getAttribute('aria-labelledby')!)?.textContent).toBe(
        section.getAttribute('data-tag'),
      );
    }
    expect(screen.getByRole('region', { name: 'user session' })).toBeTruthy();
    // details are drawn when an operation opens, not before
    expect(screen.queryByRole('heading', { name: 'Responses' })).toBeNull();
  });

  it('narrows the list to the operations whose words match the search, and says when none does', async () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    fireEvent.change(screen.getByLabelText('Search operations'), { target: { value: 'log IN' } });
    await waitFor(() => expect(screen.getByTestId('api-reference-count')?.textContent).toContain('1 of 3 operations'));
    expect(document.querySelectorAll('[data-path]')).toHaveLength(1);
    expect(operation('/ui/user/login')).not.toBeNull();
    fireEvent.change(screen.getByLabelText('Search operations'), { target: { value: 'nothing like it' } });
    await waitFor(() => expect(screen.getByText('No operations match the filters.')).toBeTruthy());
    expect(document.querySelectorAll('[data-path]')).toHaveLength(0);
  });

  it("opens an operation to who may call it, its parameters with their rules, and each response's fields", () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    const list = open('/ui/order/list');
    expect(within(list).getByText('Any signed-in user (USER or ADMIN)')).toBeTruthy();
    expect(within(list).getByText('A session token (Authorization: Bearer …)')).toBeTruthy();
    const rows = within(within(list).getByRole('table')).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual([
      'NameInType and rules',
      'pageNumquerynumber | stringAny of:numberstring  pattern ^[0-9]+$',
      'sortOrderquerystring  one of asc, desc · default asc',
    ]);
    const success = list.querySelector<HTMLElement>('[data-status="200"]')!;
    expect(success?.textContent).toMatch(/^200Success/);
    // the list's entries (Order[]) are open one level deep: their own fields are there
    const data = success.querySelector<HTMLElement>('[data-field="data"]')!;
    expect(data?.textContent).toContain('datarequiredOrder[]  at most 100 items');
    expect([...data.querySelectorAll('[data-field]')].map((field) => field.getAttribute('data-field'))).toEqual([
      'orderId',
      'quantity',
      'parent',
      'labels',
    ]);
    expect(data.querySelector('[data-field="orderId"]')?.textContent).toContain('orderIdrequiredstring  format uuid');
    expect(data.querySelector('[data-field="quantity"]')?.textContent).toContain('quantityrequiredinteger  ≥ 1');
    expect(success.querySelector('[data-field="totalNumOfPages"]')?.textContent).toMatch(/^totalNumOfPagesinteger$/);
    // a nullable Order inside an Order: marked, not opened again
    const parent = data.querySelector<HTMLElement>('[data-field="parent"]')!;
    expect(parent.textContent).toBe('parentOrder | null  shown above');
    expect(within(parent).queryByRole('button')).toBeNull();
    const error = list.querySelector<HTMLElement>('[data-status="420"]')!;
    expect(error?.textContent).toContain(
      '420One business errorapplication/jsonErrorResponseerrorTokenrequiredstringerrorDescriptionrequiredstring',
    );
  });

  it("shows a request body's fields and rules", () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    const login = open('/ui/user/login');
    expect(within(login).getByText('Anyone, without a session')).toBeTruthy();
    expect(within(login).getByText('No session token')).toBeTruthy();
    expect(within(login).getByRole('heading', { name: 'Request body (required)' })).toBeTruthy();
    expect(login.querySelector('[data-field="username"]')?.textContent).toContain('usernamerequiredstring  1–128 characters');
    expect(login.querySelector('[data-field="password"]')?.textContent).toContain('passwordrequiredstring  write-only');
  });

  it('opens the fields of a field nested deeper than one level on request, and closes them again', () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    const list = open('/ui/order/list');
    const labels = list.querySelector<HTMLElement>('[data-status="200"] [data-field="labels"]')!;
    expect(labels.textContent).toBe('labelsobject  keys string · at most 64 charactersShow the fields of labels');
    const toggle = within(labels).getByRole('button', { name: 'Show the fields of labels' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(labels.textContent).toContain('Hide the fields of labelsOther fields: string.');
    fireEvent.click(toggle);
    expect(labels.textContent).not.toContain('Other fields');
  });

  it('names the operation opened last in the address, and opens the operation an address names', () => {
    window.history.replaceState(null, '', '/settings/api?x=1');
    const first = renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    open('/ui/order/list');
    expect(window.location.hash).toBe('#get/ui/order/list');
    open('/ui/user/login');
    expect(window.location.hash).toBe('#post/ui/user/login');
    // closing another leaves the name; closing the one named takes it away
    fireEvent.click(within(operation('/ui/order/list')).getByRole('button', { expanded: true, name: /\/ui\/order\/list/ }));
    expect(window.location.hash).toBe('#post/ui/user/login');
    fireEvent.click(within(operation('/ui/user/login')).getByRole('button', { expanded: true, name: /\/ui\/user\/login/ }));
    expect(`${window.location.pathname}${window.location.search}${window.location.hash}`).toBe('/settings/api?x=1');
    first.unmount();

    window.history.replaceState(null, '', '/settings/api#post/ui/user/login');
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    expect(within(operation('/ui/user/login')).getAllByRole('button')[0]!.getAttribute('aria-expanded')).toBe('true');
    expect(within(operation('/ui/order/list')).getByRole('button').getAttribute('aria-expanded')).toBe('false');
    expect(within(operation('/ui/user/login')).getByText('Anyone, without a session')).toBeTruthy();
  });

  it('downloads the document as it is, named after its version', async () => {
    const created: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: (blob: Blob) => (created.push(blob), 'blob:x'), revokeObjectURL: () => {} }),
    );
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.download).toBe('manifold-openapi-1.2.3.json');
    });
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />);
    fireEvent.click(screen.getByRole('button', { name: 'Download the OpenAPI document' }));
    expect(click).toHaveBeenCalledTimes(1);
    expect(created).toHaveLength(1);
    expect(created[0]!.type).toBe('application/json');
    click.mockRestore();
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(created[0]!);
    });
    expect(JSON.parse(text)).toEqual(exampleOpenApiDocument);
  });

  it('reads in Chinese', () => {
    renderWithProviders(<ApiReference spec={exampleOpenApiDocument} />, { locale: 'zh' });
    expect(screen.getByTestId('api-reference-count')?.textContent).toContain('显示 3 / 3 个操作（版本 1.2.3）');
    const login = open('/ui/user/login');
    expect(within(login).getByText('任何人，无需会话')).toBeTruthy();
    expect(login.querySelector('[data-field="username"]')?.textContent).toContain('username必填string  1–128 个字符');
  });
});
