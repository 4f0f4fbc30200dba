import i18next from 'i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setTestConsoleConfig } from '../test/console-config';
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
