import { errorDescriptions, errorTokens } from '@manifold/contract';
import { describe, expect, it } from 'vitest';
import en from '../../public/locales/en.json';
import es from '../../public/locales/es.json';
import zh from '../../public/locales/zh.json';

/**
 * The console shows a server refusal by its token (`errorTokens.<token>`, see
 * components/api-error-message.ts) and falls back to the server's English description when the
 * token has no message. English keeps the server's words (specific: "The order has 3 left; 5 were
 * asked for") except where en.json words a token itself; every other language needs a message for
 * every token the server can answer, or its reader gets English.
 */
function tokenMessages(file: unknown): Record<string, unknown> {
  const messages = (file as { errorTokens?: unknown }).errorTokens;
  return typeof messages === 'object' && messages !== null ? (messages as Record<string, unknown>) : {};
}

describe('error token messages', () => {
  it('the contract answers tokens', () => {
    expect(errorTokens.length).toBeGreaterThan(200);
  });

  it.each([
    ['zh', zh],
    ['es', es],
  ])('%s has a message for every token of the contract', (_locale, file) => {
    const messages = tokenMessages(file);
    const missing = errorTokens.filter((token) => {
      const message = messages[token];
      return typeof message !== 'string' || message.trim() === '';
    });
    expect(missing).toEqual([]);
  });

  it.each([
    ['en', en],
    ['zh', zh],
    ['es', es],
  ])('%s words no token the contract lacks', (_locale, file) => {
    const known = new Set<string>(errorTokens);
    expect(Object.keys(tokenMessages(file)).filter((token) => !known.has(token))).toEqual([]);
  });
});

/**
 * Refusals the console's own forms show under a field (the authentication server and OAuth client
 * forms, the authorize form's tracking fields): their messages name the field as the form labels it,
 * never by the API's property name, which is English (and code) in every language.
 */
const formFieldTokens: Record<string, string[]> = {
  issuerEmpty: ['issuer'],
  jwkSetUriEmpty: ['jwkSetUri'],
  clientIdEmpty: ['clientId'],
  clientIdTaken: ['clientId'],
  clientGrantTypesInvalid: ['authorizedGrantTypes'],
  clientRedirectUriEmpty: ['webServerRedirectUri'],
  clientTokenValidityInvalid: ['accessTokenValidity', 'refreshTokenValidity'],
  clientAuthoritiesInvalid: ['authorities'],
  trackingFieldDuplicate: ['fieldName'],
};

describe('error token messages of form fields', () => {
  it.each([
    ['en', en],
    ['zh', zh],
    ['es', es],
  ])('%s names the fields by their labels, not by the API', (locale, file) => {
    const messages = tokenMessages(file);
    const wrong = Object.entries(formFieldTokens).filter(([token, names]) => {
      // English shows the server's own description of a token it does not word itself
      const message =
        messages[token] ?? (locale === 'en' ? errorDescriptions[token as keyof typeof errorDescriptions] : undefined);
      return typeof message === 'string' && names.some((name) => new RegExp(`\\b${name}\\b`).test(message));
    });
    expect(wrong.map(([token]) => `${token}: ${String(messages[token])}`)).toEqual([]);
  });
});
