import { describe, expect, it } from 'vitest';
import en from '../../public/locales/en.json';
import es from '../../public/locales/es.json';
import zh from '../../public/locales/zh.json';
import { maxDescriptionLength } from '../components/page-head';

/**
 * Every page description the screens give the page head by a literal key: a list header's or a
 * page head's `description`, a settings page's `intro`, a trace list's `description`.
 */
const sources = import.meta.glob<string>(['../**/*.tsx', '!../**/*.test.tsx'], { query: '?raw', import: 'default', eager: true });
const descriptionKeys = new Set<string>();
for (const text of Object.values(sources)) {
  const heads =
    /<(?:ListHeader|PageHead|SettingsPageFrame|TraceListScreen)\b(?:(?!<[A-Za-z])[\s\S]){0,800}?(?:description|intro)=\{t\('([a-zA-Z0-9_.]+)'\)\}/g;
  for (const match of text.matchAll(heads)) descriptionKeys.add(match[1] ?? '');
}

function message(file: unknown, key: string): string {
  const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], file);
  if (typeof value !== 'string') throw new Error(`No message ${key}`);
  return value;
}

describe('page descriptions', () => {
  it('are found on the screens', () => {
    // 42 when written: the list screens, the detail pages, the settings pages and the trace lists
    expect(descriptionKeys.size).toBeGreaterThanOrEqual(40);
    expect(descriptionKeys).toContain('outbox.description');
    expect(descriptionKeys).toContain('settings.server.intro');
    expect(descriptionKeys).toContain('trace.events.description');
  });

  it.each([
    ['en', en],
    ['zh', zh],
    ['es', es],
  ])(`fit the page head in %s (within ${maxDescriptionLength} characters: no warning)`, (_locale, file) => {
    const tooLong = [...descriptionKeys]
      .map((key) => [key, message(file, key).length] as const)
      .filter(([, length]) => length > maxDescriptionLength);
    expect(tooLong).toEqual([]);
  });
});
