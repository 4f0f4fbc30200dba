import { fireEvent, screen } from '@testing-library/react';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { setTestConsoleConfig } from '../test/console-config';
import { renderLogin } from '../test/login-screen';

/** What receives focus when Tab is pressed on `from`: the next element of the page's tab order. */
function nextTabStop(from: Element): HTMLElement | undefined {
  const candidates = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter(
    (element) => element.tabIndex >= 0 && !(element as HTMLButtonElement).disabled,
  );
  return candidates[candidates.indexOf(from as HTMLElement) + 1];
}

beforeEach(() => setTestConsoleConfig());

describe('a password field', () => {
  it.each([
    ['en', 'Password', 'Show password', 'Hide password'],
    ['zh', '密码', '显示密码', '隐藏密码'],
    ['es', 'Contraseña', 'Mostrar contraseña', 'Ocultar contraseña'],
  ] as const)(
    'lets a keyboard reach its show-password toggle and press it with Enter or Space, named in the language (%s)',
    (locale, label, show, hide) => {
      renderLogin(locale);
      const input = screen.getByLabelText<HTMLInputElement>(label, { exact: false, selector: 'input' });
      expect(input.type).toBe('password');
      input.focus();

      // Tab from the password goes to its toggle, named for what it does
      const toggle = nextTabStop(input);
      expect(toggle).toBe(screen.getByRole('button', { name: show }));
      toggle!.focus();
      expect(document.activeElement).toBe(toggle);

      fireEvent.keyDown(toggle!, { key: 'Enter', code: 'Enter' });
      expect(input.type).toBe('text');
      expect(toggle!.getAttribute('aria-label')).toBe(hide);
      expect(screen.getByRole('button', { name: hide })).toBe(toggle);

      fireEvent.keyDown(toggle!, { key: ' ', code: 'Space' });
      expect(input.type).toBe('password');
      expect(toggle!.getAttribute('aria-label')).toBe(show);
      // the toggle keeps the focus: pressing it again goes on from where the reader is
      expect(document.activeElement).toBe(toggle);
    },
  );

  it("is the console's own everywhere (no screen uses Mantine's, whose toggle a keyboard cannot reach)", () => {
    const root = join(__dirname, '..');
    const files = (readdirSync(root, { recursive: true }) as string[])
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
      .map((file) => join(root, file));
    const direct = files.filter((file) => {
      const source = readFileSync(file, 'utf8');
      return /import\s*{[^}]*\bPasswordInput\b[^}]*}\s*from\s*'@mantine\/core'/.test(source);
    });
    expect(direct.map((file) => relative(root, file))).toEqual(['components/password-input.tsx']);
  });
});
