import { setConsoleConfig, type TConsoleConfig } from '../lib/console-config';

/** The runtime settings of a test: a plain local console, with the given settings changed. */
export function setTestConsoleConfig(changes: Partial<TConsoleConfig> = {}): void {
  setConsoleConfig({
    siteName: 'Manifold',
    closedFunctions: [],
    publicUrl: 'http://localhost',
    secureCookies: false,
    cookieDomain: null,
    version: '1',
    ...changes,
  });
}
