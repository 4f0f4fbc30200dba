import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { describedBy } from '../../../test/described-by';
import { renderListScreen } from '../../../test/list-screen';
import { TraceParametersRoute } from './trace-parameters-route';

const emptyPage = { data: [], pageNum: 1, numberOfItems: 10, totalNumOfPages: 0, totalNumOfItems: 0 };

/** The server: no types or templates; adding a type is refused with `body` and `status`. */
function refuseType(body: unknown, status: number) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/svp-type/add') return Response.json(body, { status });
      if (pathname === '/ui/svp-type/list' || pathname === '/ui/svp/list') return Response.json(emptyPage);
      return new Response('{}', { status: 404 });
    }),
  );
}

function typeForm() {
  return within(screen.getByRole('form', { name: 'Add type' }));
}

function input(label: string): HTMLInputElement {
  return typeForm().getByLabelText(new RegExp(`^${label}\\s*\\*?$`));
}

async function addType(name: string, description: string) {
  renderListScreen(<TraceParametersRoute />, '/trace-parameters');
  await waitFor(() => expect(input('Type name')).toBeDefined());
  fireEvent.change(input('Type name'), { target: { value: name } });
  fireEvent.change(input('Description'), { target: { value: description } });
  fireEvent.click(typeForm().getByRole('button', { name: 'Add type' }));
}

beforeEach(() => setSessionToken('token-1'));
afterEach(() => vi.unstubAllGlobals());

describe('the trace parameter type form', () => {
  it('shows a taken name (420 naming name) on the name input, nothing above the form', async () => {
    refuseType(
      {
        errorToken: 'svpTypeNameTaken',
        errorDescription: 'A trace parameter type with this name already exists',
        field: 'name',
      },
      420,
    );
    await addType('Powder', 'Powder lots');
    const name = input('Type name');
    await waitFor(() => expect(name.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(name)).toBe('A trace parameter type with this name already exists');
    expect(input('Description').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByTestId('svp-type-error')).toBeNull();
  });

  it('shows a description its schema refuses (400 naming description) on that input', async () => {
    refuseType(
      {
        errorToken: 'malformedRequest',
        errorDescription: 'body/description: Too big: expected string to have <=1000 characters',
        field: 'description',
      },
      400,
    );
    await addType('Powder', 'd');
    const description = input('Description');
    await waitFor(() => expect(describedBy(description)).toBe('The request is malformed'));
    expect(description.getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('svp-type-error')).toBeNull();
  });

  it('says a refusal about no input above the form', async () => {
    refuseType({ errorToken: 'actionNotAllowed', errorDescription: 'Action not allowed' }, 403);
    await addType('Powder', '');
    expect((await screen.findByTestId('svp-type-error')).textContent).toBe('Action not allowed');
    expect(input('Type name').getAttribute('aria-invalid')).not.toBe('true');
  });
});
