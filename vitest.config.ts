import { defineConfig } from 'vitest/config';

/**
 * One Vitest run, four projects:
 * - unit: pure server and contract code (node)
 * - console: console components and client logic (jsdom)
 * - integration: the real app booted with `app.inject` against SQLite, PostgreSQL and MariaDB
 * - e2e: Playwright (playwright-core + Debian chromium) against a real started server
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'console',
          environment: 'jsdom',
          include: ['apps/console/src/**/*.test.{ts,tsx}'],
          setupFiles: ['apps/console/src/test/setup.ts'],
          testTimeout: 15_000,
        },
      },
      {
        test: {
          name: 'integration',
          environment: 'node',
          include: ['apps/server/test/**/*.int.test.ts'],
          globalSetup: ['apps/server/test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.test.ts'],
          globalSetup: ['e2e/global-setup.ts'],
          setupFiles: ['e2e/support/failure-screens.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
