import { describe, expect, it } from 'vitest';
import { dashboardMaxBackoffMs, dashboardRefreshDelay, dashboardRefreshMs } from './get-dashboard';

describe('dashboard refresh', () => {
  it('refreshes on the interval while the server answers, and backs off while it fails', () => {
    expect(dashboardRefreshDelay(0)).toBe(dashboardRefreshMs);
    expect(dashboardRefreshDelay(1)).toBe(2 * dashboardRefreshMs);
    expect(dashboardRefreshDelay(2)).toBe(4 * dashboardRefreshMs);
    expect(dashboardRefreshDelay(10)).toBe(dashboardMaxBackoffMs);
  });
});
