import { hasControlCharacter, isSiteName, type TServerConfig } from '@manifold/contract';
import { ErrorCollector } from '../../lib/app-error.js';

/**
 * A canonical server address: absolute http(s), no credentials, query or fragment; no trailing
 * slash. A control character anywhere refuses it (the URL parser would drop or percent-encode it
 * silently and keep another address; the C0 controls XML cannot carry are refused earlier, for
 * every request: `plugins/input-hygiene.ts`).
 */
export function canonicalServerUrl(text: string): string | undefined {
  if (hasControlCharacter(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash || !url.hostname) return undefined;
  return url.href.replace(/\/+$/, '');
}

/**
 * Checks a `POST admin/server` body; answers it normalised (trimmed name, canonical URL). The name
 * is one line: a control character anywhere in it (also at an end, before trimming) refuses it.
 */
export function checkServerConfig(input: TServerConfig): TServerConfig {
  const errors = new ErrorCollector();
  const serverSiteName = input.serverSiteName.trim();
  if (!isSiteName(input.serverSiteName)) errors.add('serverSiteNameEmpty', 'serverSiteName');
  const serverUrl = canonicalServerUrl(input.serverUrl);
  if (serverUrl === undefined) errors.add('serverUrlInvalid', 'serverUrl');
  errors.throwIfAny();
  return { ...input, serverSiteName, serverUrl: serverUrl! };
}
