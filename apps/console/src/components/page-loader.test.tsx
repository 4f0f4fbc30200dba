import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../test/render';
import { PageLoader } from './page-loader';

describe('PageLoader', () => {
  it('is a status named by its label (an aria-label needs a role on the loader element; axe refused it without)', () => {
    renderWithProviders(<PageLoader />);
    expect(screen.getByRole('status', { name: 'Loading…' })).toBeTruthy();
  });
});
