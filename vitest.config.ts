import { defineConfig } from 'vitest/config';
import { mantineUsesReactId } from './apps/console/vite.config';
import { LongestFirstSequencer } from './scripts/test-order';

/**
 * One Vitest run, four projects:
 * - unit: pure server and contract code (node)
 * - console: console components and client logic (jsdom)
 * - integration: the real app booted with `app.inject` against SQLite, PostgreSQL and MariaDB
 * - e2e: Playwright (playwright-core + Debian chromium) against real started servers, one per worker
 */
export default defineConfig({
  test: {
    // two files at a time in every project (Vitest's default on two cores is one)
    maxWorkers: 2,
    // within each project the longest files first (scripts/test-order.ts)
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          // one module graph per worker, not per file: 32 -> 15 s on two cores (docs/testing.md)
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        // Mantine's inputs as the build has them (apps/console/src/lib/mantine-use-id.ts)
        plugins: [mantineUsesReactId()],
        test: {
          name: 'console',
          // through Vite, so that the plugin above reaches Mantine's modules
          server: { deps: { inline: [/[\\/]@mantine[\\/]/] } },
          environment: 'jsdom',
          include: ['apps/console/src/**/*.test.{ts,tsx}'],
          // one module graph per worker, not per file (Mantine and React are imported twice, not 45
          // times): 102 -> 25 s on two cores. No file replaces a module (vi.mock); a stubbed global
          // is undone before every test.
          isolate: false,
          unstubGlobals: true,
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
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.test.ts'],
          globalSetup: ['e2e/global-setup.ts'],
          setupFiles: ['e2e/support/own-server.ts', 'e2e/support/failure-screens.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // a screen under load can take seconds to show what a poll waits for (Vitest's default gives up after 1 s)
          expect: { poll: { timeout: 15_000 } },
          // two files at a time, each on a server of its own (e2e/global-setup.ts, e2e/support/own-server.ts)
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
