import { describe, expect, it } from 'vitest';
import { activeNavigationTo, navigationItems } from './navigation';

describe('the navigation entry of a page', () => {
  it('is one entry only: the inspection form is not also the quality screen', () => {
    expect(activeNavigationTo(navigationItems, '/quality/inspect')).toBe('/quality/inspect');
    expect(activeNavigationTo(navigationItems, '/quality')).toBe('/quality');
  });

  it("is the entry of a page's folder, on whole path segments", () => {
    expect(activeNavigationTo(navigationItems, '/parts/1b2c')).toBe('/parts');
    expect(activeNavigationTo(navigationItems, '/network/trace')).toBe('/network');
    expect(activeNavigationTo(navigationItems, '/')).toBe('/');
    expect(activeNavigationTo(navigationItems, '/partsx')).toBeUndefined();
    expect(activeNavigationTo(navigationItems, '/login')).toBeUndefined();
  });
});
