import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render';
import { AddOrderForm } from './add-order-form';

describe('the add-order form', () => {
  it('sets only the pasted JSON in the monospace font, not the label and help above it', () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <AddOrderForm onCancel={() => {}} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const input = screen.getByRole('textbox', { name: /Authorized policy list/ });
    expect(input.style.fontFamily).toBe('var(--mantine-font-family-monospace)');
    const root = input.closest('.mantine-Textarea-root');
    expect(root).toBeTruthy();
    expect((root as HTMLElement).style.fontFamily).toBe('');
  });
});
