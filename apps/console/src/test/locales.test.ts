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

/** A plural form of a message (i18next: `key_one`, `key_other`… chosen by `count`). */
const pluralForm = /^(.+)_(zero|one|two|few|many|other)$/;

/** The message a key belongs to: a plural form counts as its message `key_{plural}`. */
function messageOf(key: string): string {
  const match = pluralForm.exec(key);
  return match ? `${match[1]}_{plural}` : key;
}

/** The plural forms i18next chooses from in `locale`: those of its plural rules. */
function pluralCategories(locale: string): string[] {
  return [...new Intl.PluralRules(locale).resolvedOptions().pluralCategories].sort();
}

/**
 * A server refusal's message by its token: English leaves most to the server's own words (its
 * description, often with particulars); the other languages translate every token
 * (error-tokens.test.ts). These are the one part of the files where a language may have more.
 */
const isTokenMessage = (key: string) => key.startsWith('errorTokens.');

describe('message files', () => {
  const messagesIn = (locale: string) => [...new Set(keysOf(messages(locale)).map(messageOf))].sort();
  const english = messagesIn('en');

  it.each(translationLocales.filter((locale) => locale !== 'en'))('%s has exactly the messages of en', (locale) => {
    expect(messagesIn(locale).filter((key) => !isTokenMessage(key))).toEqual(english.filter((key) => !isTokenMessage(key)));
    // and a message for every token English words itself
    const own = new Set(messagesIn(locale));
    expect(english.filter((key) => isTokenMessage(key) && !own.has(key))).toEqual([]);
  });

  it.each([...translationLocales])('%s gives each plural message exactly the forms of its plural rules', (locale) => {
    const keys = keysOf(messages(locale));
    const forms = new Map<string, string[]>();
    for (const key of keys) {
      const match = pluralForm.exec(key);
      if (match) forms.set(match[1] ?? '', [...(forms.get(match[1] ?? '') ?? []), match[2] ?? ''].sort());
    }
    expect(forms.size).toBeGreaterThan(0);
    const wrong = [...forms].filter(
      ([base, suffixes]) => keys.includes(base) || suffixes.join() !== pluralCategories(locale).join(),
    );
    expect(wrong).toEqual([]);
  });

  it.each([...translationLocales])('%s has no empty message', (locale) => {
    const empty = keysOf(messages(locale)).filter((key) => {
      const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], messages(locale));
      return typeof value !== 'string' || value.trim() === '';
    });
    expect(empty).toEqual([]);
  });

  /** The interpolation variables of each message (of each plural form, as a list of the forms' lists). */
  const variables = (locale: string) => {
    const result: Record<string, string[][]> = {};
    const walk = (node: unknown, prefix: string) => {
      if (typeof node === 'string')
        (result[messageOf(prefix)] ??= []).push([...node.matchAll(/{{(\w+)}}/g)].map((match) => match[1] ?? '').sort());
      else if (typeof node === 'object' && node !== null)
        for (const [key, child] of Object.entries(node)) walk(child, prefix ? `${prefix}.${key}` : key);
    };
    walk(messages(locale), '');
    return result;
  };

  it.each([...translationLocales])('%s interpolates count into every plural form, and the same variables into each', (locale) => {
    const wrong = Object.entries(variables(locale)).filter(
      ([message, forms]) =>
        message.endsWith('_{plural}') && forms.some((form) => !form.includes('count') || form.join() !== forms[0]?.join()),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps the same interpolation variables in every language', () => {
    const single = (locale: string) =>
      Object.fromEntries(Object.entries(variables(locale)).map(([message, forms]) => [message, forms[0]]));
    const english = single('en');
    for (const locale of translationLocales) {
      const theirs = single(locale);
      expect(Object.fromEntries(Object.keys(english).map((message) => [message, theirs[message]]))).toEqual(english);
    }
  });
});

/**
 * The one wording of a list with nothing in it and the one of a list whose search or filters match
 * nothing (docs/console.md): a message named `empty…` says "No {things} yet." (a sentence of advice
 * may follow), one named `noMatch…` "No {things} match the filters."
 */
const emptyWordings: Record<string, { empty: RegExp; noMatch: RegExp }> = {
  en: { empty: /^No \S.* yet\.( \S.*\.)?$/, noMatch: /^No \S.* match the filters\.$/ },
  zh: { empty: /^暂无[^。]+。([^。]+。)?$/, noMatch: /^没有符合筛选条件的[^。]+。$/ },
  es: { empty: /^Todavía no hay \S.*\.( \S.*\.)?$/, noMatch: /^No hay \S.* que coincidan con los filtros\.$/ },
};

describe('the wording of empty lists', () => {
  const listMessages = (locale: string, prefix: 'empty' | 'noMatch') =>
    keysOf(messages(locale))
      .filter((key) => key.split('.').at(-1)?.startsWith(prefix))
      .map((key) => [
        key,
        key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], messages(locale)),
      ]);

  it.each([...translationLocales])('%s says "nothing yet" and "nothing matches the filters" one way each', (locale) => {
    const wording = emptyWordings[locale];
    if (!wording) throw new Error(`No empty-list wording for ${locale}`);
    expect(listMessages(locale, 'empty').length).toBeGreaterThan(30);
    expect(listMessages(locale, 'noMatch').length).toBeGreaterThan(10);
    expect(listMessages(locale, 'empty').filter(([, text]) => !wording.empty.test(String(text)))).toEqual([]);
    expect(listMessages(locale, 'noMatch').filter(([, text]) => !wording.noMatch.test(String(text)))).toEqual([]);
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

  it('finds every literal translation key in the English messages, a plural one called with its count', () => {
    const used = new Map<string, boolean>();
    for (const text of Object.values(sources)) {
      for (const match of text.matchAll(/\bt\('([a-zA-Z0-9_.]+)'(\s*,\s*\{[^}]*\})?/g)) {
        const key = match[1] ?? '';
        const counted = /\bcount\b/.test(match[2] ?? '');
        used.set(key, (used.get(key) ?? true) && counted);
      }
    }
    expect(used.size).toBeGreaterThan(50);
    const plural = (key: string) => pluralCategories('en').every((category) => has(en, `${key}_${category}`));
    expect([...used].filter(([key, counted]) => !has(en, key) && !(counted && plural(key)))).toEqual([]);
  });
});
