import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// a file may run in Node's environment (`// @vitest-environment node`): the rest is for jsdom's
const inBrowser = typeof window !== 'undefined';

// jsdom lacks the layout APIs Mantine reads.
if (inBrowser && !window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string): MediaQueryList => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}

class ResizeObserverStub implements ResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
if (inBrowser && !('ResizeObserver' in window)) {
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}
if (inBrowser && !Element.prototype.scrollIntoView) {
  Element.prototype.scrollIntoView = () => undefined;
}

afterEach(() => {
  if (!inBrowser) return;
  cleanup();
  // a search typed and kept for its entry of the history (hooks/use-paged-search.ts)
  sessionStorage.clear();
  document.cookie.split(';').forEach((part) => {
    const name = part.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Max-Age=0; Path=/`;
  });
});
