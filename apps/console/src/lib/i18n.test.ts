import i18next from 'i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import en from '../../public/locales/en.json';
import es from '../../public/locales/es.json';
import zh from '../../public/locales/zh.json';
import { setTestConsoleConfig } from '../test/console-config';
import { testI18n } from '../test/render';
import { readCookie } from './cookies';
import { changeLocale, consoleProfileLanguages, initI18n, resolveLocale, textDirection } from './i18n';

describe('resolveLocale', () => {
  it('uses a supported locale as asked', () => {
    expect(resolveLocale('zh')).toBe('zh');
    expect(resolveLocale('en')).toBe('en');
  });

  it('falls back to the language part of an unsupported locale', () => {
    expect(resolveLocale('zh-CN')).toBe('zh');
    expect(resolveLocale('zh_TW')).toBe('zh');
    expect(resolveLocale('en-GB')).toBe('en');
  });

  it('falls back to English when neither is supported', () => {
    expect(resolveLocale('fr-FR')).toBe('en');
    expect(resolveLocale('es')).toBe('en');
    expect(resolveLocale('')).toBe('en');
    expect(resolveLocale(undefined)).toBe('en');
  });

  it('prefers an exact match over the language part', () => {
    expect(resolveLocale('pt-BR', ['pt', 'pt-BR'], 'pt')).toBe('pt-BR');
    expect(resolveLocale('pt-PT', ['pt', 'pt-BR'], 'pt')).toBe('pt');
  });
});

describe('locale change', () => {
  afterEach(() => vi.unstubAllGlobals());

  function stubMessages() {
    const requested: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        requested.push(url);
        const locale = /\/locales\/(\w+)\.json$/.exec(url)?.[1] ?? '';
        return new Response(JSON.stringify({ greeting: `hello-${locale}` }), { status: 200 });
      }),
    );
    return requested;
  }

  it('stores the cookie, loads the message file before switching, and sets lang and dir', async () => {
    setTestConsoleConfig();
    const requested = stubMessages();
    const instance = i18next.createInstance();
    await initI18n(instance);
    expect(instance.language).toBe('en');

    const locale = await changeLocale('zh-CN', instance);
    expect(locale).toBe('zh');
    expect(requested).toContain('/locales/zh.json');
    expect(instance.language).toBe('zh');
    expect(instance.t('greeting')).toBe('hello-zh');
    expect(readCookie('locale')).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh');
    expect(document.documentElement.dir).toBe('ltr');
  });

  it('starts with the first locale’s messages fetched once, in place before the start resolves', async () => {
    setTestConsoleConfig();
    const requested = stubMessages();
    const instance = i18next.createInstance();
    expect(await initI18n(instance)).toBe('en');
    expect(requested).toEqual(['/locales/en.json']);
    expect(instance.isInitialized).toBe(true);
    expect(instance.t('greeting')).toBe('hello-en');
    expect(instance.getResourceBundle('en', 'translation')).toEqual({ greeting: 'hello-en' });
    // a second start on the same instance fetches nothing again
    await initI18n(instance);
    expect(requested).toEqual(['/locales/en.json']);
  });

  it('deletes the cookie and falls back to the system locale when empty', async () => {
    stubMessages();
    const instance = i18next.createInstance();
    await initI18n(instance);
    await changeLocale('zh', instance);
    expect(readCookie('locale')).toBe('zh');
    const locale = await changeLocale('', instance);
    expect(readCookie('locale')).toBeUndefined();
    expect(locale).toBe(resolveLocale(navigator.language));
  });

  it('knows right-to-left languages', () => {
    expect(textDirection('ar-EG')).toBe('rtl');
    expect(textDirection('zh')).toBe('ltr');
  });

  it('offers the profile languages the console has messages for', () => {
    expect(consoleProfileLanguages).toEqual(['en_US', 'zh_CN']);
  });
});

describe('counts', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** Every message of `tree` with plural forms, by the key the screens call it with. */
  function pluralMessages(tree: unknown, prefix = ''): string[] {
    if (typeof tree !== 'object' || tree === null) return [];
    return Object.entries(tree).flatMap(([key, child]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      return typeof child === 'string'
        ? key.endsWith('_other')
          ? [path.slice(0, -'_other'.length)]
          : []
        : pluralMessages(child, path);
    });
  }

  it('are said with the plural forms of the message files, by the console as by the component tests', async () => {
    setTestConsoleConfig();
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const locale = /\/locales\/(\w+)\.json$/.exec(url)?.[1] ?? '';
        return new Response(JSON.stringify(locale === 'zh' ? zh : en), { status: 200 });
      }),
    );
    const instance = i18next.createInstance();
    await initI18n(instance);
    const keys = pluralMessages(en);
    expect(keys).toContain('packages.files.caption');
    for (const locale of ['en', 'zh'] as const) {
      await changeLocale(locale, instance);
      for (const key of keys)
        for (const count of [0, 1, 2, 1_000_000]) expect(instance.t(key, { count })).toBe(testI18n(locale).t(key, { count }));
    }
    await changeLocale('en', instance);
    expect(instance.t('packages.files.caption', { count: 1 })).toBe('1 file');
    expect(instance.t('packages.files.caption', { count: 2 })).toBe('2 files');
    await changeLocale('zh', instance);
    expect(instance.t('packages.files.caption', { count: 1 })).toBe('1 个文件');
  });

  it('of a million stay Spanish: Spanish has a plural form for them ("many")', () => {
    const spanish = testI18n('es');
    for (const key of pluralMessages(es))
      expect(spanish.t(key, { count: 1_000_000 })).not.toBe(testI18n('en').t(key, { count: 1_000_000 }));
    expect(spanish.t('packages.files.caption', { count: 1_000_000 })).toBe('1000000 archivos');
    expect(spanish.t('packages.files.caption', { count: 1 })).toBe('1 archivo');
  });
});
