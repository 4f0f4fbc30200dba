import { SITE_NAME_MAX_LENGTH, type TServerConfig } from '@manifold/contract';
import { ErrorCollector } from '../../lib/app-error.js';

/** A canonical server address: absolute http(s), no credentials, query or fragment; no trailing slash. */
export function canonicalServerUrl(text: string): string | undefined {
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

/** Checks a `POST admin/server` body; answers it normalised (trimmed name, canonical URL). */
export function checkServerConfig(input: TServerConfig): TServerConfig {
  const errors = new ErrorCollector();
  const serverSiteName = input.serverSiteName.trim();
  if (serverSiteName.length === 0 || serverSiteName.length > SITE_NAME_MAX_LENGTH) {
    errors.add('serverSiteNameEmpty', 'serverSiteName');
  }
  const serverUrl = canonicalServerUrl(input.serverUrl);
  if (serverUrl === undefined) errors.add('serverUrlInvalid', 'serverUrl');
  errors.throwIfAny();
  return { ...input, serverSiteName, serverUrl: serverUrl! };
}
