import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createAlertQueue } from '../../lib/alerts';
import { renderWithProviders } from '../../test/render';
import { AlertViewport } from './alert-viewport';

describe('AlertViewport', () => {
  it('renders each alert in its position at z-index 100 and closes it on request', async () => {
    const queue = createAlertQueue();
    const { container } = renderWithProviders(<AlertViewport queue={queue} />);
    act(() => {
      queue.error('Action not allowed', { timeout: 0 });
      queue.success('Saved', { position: 'bottom-right', timeout: 0 });
    });
    expect(await screen.findByText('Action not allowed')).toBeTruthy();
    const top = container.querySelector<HTMLElement>('[data-alert-position="top-center"]');
    const bottom = container.querySelector<HTMLElement>('[data-alert-position="bottom-right"]');
    expect(top?.style.zIndex).toBe('100');
    expect(top?.style.top).toBe('10px');
    expect(bottom?.style.bottom).toBe('10px');
    expect(bottom?.style.right).toBe('10px');
    expect(bottom?.textContent).toContain('Saved');

    const close = screen.getAllByRole('button', { name: 'Close message' })[0];
    if (!close) throw new Error('no close button');
    fireEvent.click(close);
    expect(queue.store.get()[0]?.visible).toBe(false);
  });
});
