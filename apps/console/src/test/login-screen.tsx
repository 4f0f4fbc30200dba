import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { LoginRoute } from '../features/auth/routes/login-route';
import { renderWithProviders, type TestLocale } from './render';

/** The login screen at `/login`, in `locale`, with a query client of its own that does not retry. */
export function renderLogin(locale: TestLocale): void {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/login']}>
        <LoginRoute />
      </MemoryRouter>
    </QueryClientProvider>,
    { locale },
  );
}
