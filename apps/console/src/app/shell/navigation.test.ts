import { describe, expect, it } from 'vitest';
import { activeNavigationTo, navigationGroups, navigationItems, navigationSections } from './navigation';

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

describe('the sections of the navigation', () => {
  it('lists every section together, in the order of the headings, after the unheaded first entries', () => {
    const sections = navigationItems.map((item) => item.section);
    expect(sections.slice(0, 2)).toEqual([undefined, undefined]);
    const order = navigationGroups(navigationItems).map((group) => group.section);
    expect(order).toEqual([undefined, ...navigationSections]);
  });

  it('shows a heading only for the sections a role sees an entry of', () => {
    const seen = navigationItems.filter((item) => ['/', '/orders', '/devices', '/quality'].includes(item.to));
    expect(navigationGroups(seen).map((group) => [group.section, group.items.map((item) => item.to)])).toEqual([
      [undefined, ['/']],
      ['licensing', ['/devices', '/orders']],
      ['quality', ['/quality']],
    ]);
  });
});
