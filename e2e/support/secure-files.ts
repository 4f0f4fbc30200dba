import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { adminToken, api, checkScreen, freshPage, logInAs } from './browser';

/** A user group with these members (through the API). */
export async function createGroup(name: string, members: string[]): Promise<number> {
  const { status, body } = await api<{ userGroupId: number }>('POST /ui/groups/add', {
    token: await adminToken(),
    body: { name, members },
  });
  expect(status).toBe(200);
  return body.userGroupId;
}

/** Opens the Secure files screen from the main navigation. */
export async function openSecureFiles(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Secure files' }).click();
  await page.getByRole('heading', { name: 'Secure files', level: 1 }).waitFor();
}

/**
 * Logs `user` in (a user of no group a folder is shared with) and checks they see neither the
 * folder in the list nor, through its address, the file; `screen` names an accessibility check.
 */
export async function expectHiddenFrom(
  browser: Browser,
  user: { username: string; password: string },
  folder: { name: string; url: string },
  fileName: string,
  screen?: string,
): Promise<void> {
  const settle = { timeout: 20_000 };
  const { context, page } = await freshPage(browser);
  try {
    await logInAs(page, user);
    await openSecureFiles(page);
    await page.getByText('No folders yet.', { exact: true }).waitFor(settle);
    expect(await page.getByText(folder.name).count()).toBe(0);
    await page.goto(folder.url);
    await page.getByText('The folder or file does not exist').first().waitFor(settle);
    expect(await page.getByText(fileName).count()).toBe(0);
    if (screen) await checkScreen(page, screen);
  } finally {
    await context.close();
  }
}
