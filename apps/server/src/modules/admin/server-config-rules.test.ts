import { describe, expect, it } from 'vitest';
import { AppError, AppErrors } from '../../lib/app-error.js';
import { canonicalServerUrl, checkServerConfig } from './server-config-rules.js';

const base = { serverSiteName: 'Acme', serverUrl: 'https://manifold.example', manageEnabled: true, traceEnabled: false };

describe('server configuration rules', () => {
  it('accepts absolute http(s) addresses and drops a trailing slash', () => {
    expect(canonicalServerUrl('https://manifold.example/')).toBe('https://manifold.example');
    expect(canonicalServerUrl(' http://10.0.0.5:8080/manifold/ ')).toBe('http://10.0.0.5:8080/manifold');
  });

  it('refuses relative, non-http, credentialed, query and fragment addresses', () => {
    for (const bad of [
      '/relative',
      'manifold.example',
      'ftp://x.example',
      'javascript:alert(1)',
      'https://u:p@x.example',
      'https://x.example/?a=1',
      'https://x.example/#top',
      'https://manifold.ex\nample',
      'https://manifold.example/\tpath',
      'https://manifold.example/a\u0001b',
      'https://manifold.example/a\u0085b',
      '',
    ]) {
      expect(canonicalServerUrl(bad), bad).toBeUndefined();
    }
  });

  it('refuses a site name holding a control character (Unicode Cc) anywhere', () => {
    for (const serverSiteName of [
      'Acme\nWorks',
      'Acme\r\n',
      '\tAcme',
      'Acme\u0007',
      'Acme\u001b[31m',
      'Acme\u007f',
      'Acme\u0085',
    ]) {
      try {
        checkServerConfig({ ...base, serverSiteName });
        expect.unreachable(JSON.stringify(serverSiteName));
      } catch (error) {
        expect(error, JSON.stringify(serverSiteName)).toBeInstanceOf(AppError);
        expect([(error as AppError).token, (error as AppError).field]).toEqual(['serverSiteNameEmpty', 'serverSiteName']);
      }
    }
    // other Unicode is a name's business: letters of any script, symbols, format characters
    expect(checkServerConfig({ ...base, serverSiteName: 'Ærø Werk 東京 ™' }).serverSiteName).toBe('Ærø Werk 東京 ™');
  });

  it('trims the site name and names each bad field', () => {
    expect(checkServerConfig({ ...base, serverSiteName: '  Acme Works ' }).serverSiteName).toBe('Acme Works');
    expect(() => checkServerConfig({ ...base, serverSiteName: '  ' })).toThrow(AppError);
    try {
      checkServerConfig({ ...base, serverSiteName: 'x'.repeat(65), serverUrl: 'nope' });
    } catch (error) {
      expect(error).toBeInstanceOf(AppErrors);
      expect((error as AppErrors).errors.map((e) => [e.token, e.field])).toEqual([
        ['serverSiteNameEmpty', 'serverSiteName'],
        ['serverUrlInvalid', 'serverUrl'],
      ]);
    }
  });
});
