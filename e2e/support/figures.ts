import type { Page } from 'playwright-core';

/** The median of a benchmark's runs (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Waits until the login form is usable (its fields and button rendered, enabled, accepting input)
 * and answers when that was, in milliseconds since the navigation began.
 */
export async function loginFormUsableAt(page: Page): Promise<number> {
  await page.waitForFunction(() => {
    const username = document.querySelector<HTMLInputElement>('input[name="username"]');
    const password = document.querySelector<HTMLInputElement>('input[name="password"]');
    const submit = document.querySelector<HTMLButtonElement>('button[type="submit"]');
    return Boolean(username && password && submit && !username.disabled && !submit.disabled);
  });
  return page.evaluate(() => performance.now());
}
