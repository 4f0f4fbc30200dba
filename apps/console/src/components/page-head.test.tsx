import { waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setTestConsoleConfig } from '../test/console-config';
import { renderWithProviders } from '../test/render';
import { ErrorView } from './error-view';
import { PageHead } from './page-head';

function renderAt(path: string, element: ReactNode) {
  const router = createMemoryRouter([{ path: '*', element }], { initialEntries: [path] });
  return renderWithProviders(<RouterProvider router={router} />);
}

describe('PageHead', () => {
  beforeEach(() => {
    setTestConsoleConfig({ siteName: 'Acme Print', publicUrl: 'https://print.example/console/', secureCookies: true });
  });
  afterEach(() => vi.restoreAllMocks());

  it('titles the page with the product name by default', async () => {
    renderAt('/', <PageHead />);
    await waitFor(() => expect(document.title).toBe('Acme Print'));
  });

  it('sets the title, social tags, canonical address and site handle', async () => {
    renderAt('/users', <PageHead title="Users" description="Accounts" image="https://print.example/og.png" siteHandle="@acme" />);
    await waitFor(() => expect(document.title).toBe('Users · Acme Print'));
    const meta = (selector: string) => document.head.querySelector(selector)?.getAttribute('content');
    expect(meta('meta[property="og:title"]')).toBe('Users · Acme Print');
    expect(meta('meta[name="description"]')).toBe('Accounts');
    expect(meta('meta[property="og:description"]')).toBe('Accounts');
    expect(meta('meta[property="og:image"]')).toBe('https://print.example/og.png');
    expect(meta('meta[name="twitter:site"]')).toBe('@acme');
    expect(document.head.querySelector('link[rel="canonical"]')?.getAttribute('href')).toBe(
      'https://print.example/console/users',
    );
  });

  it('warns about a description over 160 characters', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderAt('/', <PageHead description={'x'.repeat(160)} />);
    expect(warn).not.toHaveBeenCalled();
    renderAt('/', <PageHead description={'x'.repeat(161)} />);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('shows the error view with its code, message and title', async () => {
    const { getByTestId } = renderAt('/missing', <ErrorView code={404} message="Page not found" />);
    expect(getByTestId('error-view-text').textContent).toBe('404 - Page not found');
    await waitFor(() => expect(document.title).toBe('404 — Acme Print'));
  });
});
