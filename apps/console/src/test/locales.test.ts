import { describe, expect, it } from 'vitest';
import en from '../../public/locales/en.json';
import es from '../../public/locales/es.json';
import zh from '../../public/locales/zh.json';
import { translationLocales } from '../lib/i18n';

const files: Record<string, unknown> = { en, zh, es };

function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keysOf(child, prefix ? `${prefix}.${key}` : key));
}

function messages(locale: string): unknown {
  const file = files[locale];
  if (file === undefined) throw new Error(`No message file for ${locale}`);
  return file;
}

describe('message files', () => {
  const english = keysOf(messages('en')).sort();

  it.each(translationLocales.filter((locale) => locale !== 'en'))('%s has exactly the keys of en', (locale) => {
    expect(keysOf(messages(locale)).sort()).toEqual(english);
  });

  it.each([...translationLocales])('%s has no empty message', (locale) => {
    const empty = keysOf(messages(locale)).filter((key) => {
      const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], messages(locale));
      return typeof value !== 'string' || value.trim() === '';
    });
    expect(empty).toEqual([]);
  });

  it('keeps the same interpolation variables in every language', () => {
    const variables = (locale: string) => {
      const result: Record<string, string[]> = {};
      const walk = (node: unknown, prefix: string) => {
        if (typeof node === 'string') result[prefix] = [...node.matchAll(/{{(\w+)}}/g)].map((match) => match[1] ?? '').sort();
        else if (typeof node === 'object' && node !== null)
          for (const [key, child] of Object.entries(node)) walk(child, prefix ? `${prefix}.${key}` : key);
      };
      walk(messages(locale), '');
      return result;
    };
    const english = variables('en');
    for (const locale of translationLocales) expect(variables(locale)).toEqual(english);
  });
});

describe('messages used by the source', () => {
  const sources = import.meta.glob<string>(['../**/*.tsx', '../**/*.ts', '!../**/*.test.ts', '!../**/*.test.tsx'], {
    query: '?raw',
    import: 'default',
    eager: true,
  });

  function has(tree: unknown, key: string): boolean {
    let node = tree;
    for (const part of key.split('.')) {
      if (typeof node !== 'object' || node === null || !(part in node)) return false;
      node = (node as Record<string, unknown>)[part];
    }
    return typeof node === 'string';
  }

  it('finds every literal translation key in the English messages', () => {
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const match of text.matchAll(/\bt\('([a-zA-Z0-9_.]+)'/g)) used.add(match[1] ?? '');
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((key) => !has(en, key))).toEqual([]);
  });
});
