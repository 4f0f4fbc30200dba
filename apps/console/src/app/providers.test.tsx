import { QueryClient } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import i18next from 'i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { themeStore } from '../lib/theme';
import { AppProviders } from './providers';

describe('AppProviders', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    themeStore.set('light');
  });

  it('takes the colour scheme from the theme store (the theme cookie) and never touches localStorage', () => {
    const getItem = vi.spyOn(Storage.prototype, 'getItem');
    const setItem = vi.spyOn(Storage.prototype, 'setItem');
    const removeItem = vi.spyOn(Storage.prototype, 'removeItem');
    themeStore.set('dark');
    const { unmount } = render(
      <AppProviders queryClient={new QueryClient()} i18n={i18next.createInstance()}>
        <p>screen</p>
      </AppProviders>,
    );
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('dark');
    act(() => themeStore.set('light'));
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('light');
    unmount();
    expect(getItem).not.toHaveBeenCalled();
    expect(setItem).not.toHaveBeenCalled();
    expect(removeItem).not.toHaveBeenCalled();
  });
});
