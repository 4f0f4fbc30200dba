import { describe, expect, it } from 'vitest';
import { permissions } from './permissions.js';
import { gateOf, isRouteOpen, routeGates } from './server-admin.js';

describe('route gates', () => {
  it('maps each spec path to its function or addon; the most specific row wins', () => {
    expect(gateOf('/ui/order/list')).toBe('manage');
    expect(gateOf('/ui/authorization/send')).toBe('manage');
    expect(gateOf('/stp/order/list')).toBe('manage');
    expect(gateOf('/ui/event/list')).toBe('trace');
    expect(gateOf('/apl/event')).toBe('trace');
    expect(gateOf('/ui/das/list')).toBe('designArchive');
    expect(gateOf('/ui/qms/parts/search')).toBe('quality');
    expect(gateOf('/ui/secure-repo/create-folder')).toBe('secureRepository');
  });

  it('leaves the rest open: administration, users, packages, devices, partner registrations', () => {
    for (const url of [
      '/ui/admin/server',
      '/ui/user/list',
      '/ui/package/list',
      '/ui/device/list',
      '/apl/registration/add',
      '/ui/orders',
    ]) {
      expect(gateOf(url), url).toBeUndefined();
    }
    expect(gateOf('/apl/event/extra'), 'a row without a trailing slash is that route alone').toBeUndefined();
  });

  it('closes only the routes of closed gates', () => {
    expect(isRouteOpen('/ui/order/list', ['trace'])).toBe(true);
    expect(isRouteOpen('/ui/order/list', ['manage'])).toBe(false);
    expect(isRouteOpen('/ui/user/list', ['manage', 'trace'])).toBe(true);
  });

  it('every permission row under a gated path is gated (no typo leaves one out)', () => {
    const gated = Object.keys(permissions)
      .map((key) => key.slice(key.indexOf(' ') + 1))
      .filter((url) => routeGates.some((row) => url.startsWith(row.path)));
    for (const url of gated) expect(gateOf(url), url).toBeDefined();
  });
});
