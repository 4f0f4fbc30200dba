import { screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { renderWithProviders } from '../test/render';
import { RouteErrorView } from './error-view';

/** A screen whose loader fails with `failure`, shown by the route error view. */
function renderFailingRoute(failure: unknown) {
  const router = createMemoryRouter(
    [
      {
        path: '/',
        loader: () => {
          throw failure;
        },
        element: null,
        errorElement: <RouteErrorView />,
      },
    ],
    { initialEntries: ['/'] },
  );
  return renderWithProviders(<RouterProvider router={router} />);
}

describe('RouteErrorView', () => {
  afterEach(() => vi.restoreAllMocks());

  it("says input the console refused to send (a ZodError) as the server's 400 for it, not as an unknown failure", async () => {
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const refused = z.object({ pageNumber: z.number().int().min(1) }).safeParse({ pageNumber: 0 });
    renderFailingRoute(refused.error);
    expect((await screen.findByTestId('error-view-text')).textContent).toBe('400 - The request is malformed');
    expect(errorLog).not.toHaveBeenCalled();
  });

  it('says an unknown failure as a 500', async () => {
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderFailingRoute(new TypeError('boom'));
    expect((await screen.findByTestId('error-view-text')).textContent).toBe('500 - Oops! Something went wrong. Try again later.');
    expect(errorLog).toHaveBeenCalled();
  });

  it('links to the home page below the message', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderFailingRoute(new TypeError('boom'));
    const home = await screen.findByRole('link', { name: 'Go to the home page' });
    expect(home.getAttribute('href')).toBe('/');
  });
});
