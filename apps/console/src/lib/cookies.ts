export interface CookieOptions {
  path?: string;
  domain?: string | null;
  secure?: boolean;
  sameSite?: 'Lax' | 'Strict' | 'None';
  maxAgeSeconds?: number;
}

export function readCookie(name: string): string | undefined {
  const prefix = `${encodeURIComponent(name)}=`;
  for (const part of document.cookie.split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith(prefix)) {
      const value = decodeURIComponent(trimmed.slice(prefix.length));
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

function serialize(name: string, value: string, options: CookieOptions): string {
  const parts = [`${encodeURIComponent(name)}=${encodeURIComponent(value)}`];
  parts.push(`Path=${options.path ?? '/'}`);
  if (options.domain) parts.push(`Domain=${options.domain}`);
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  parts.push(`SameSite=${options.sameSite ?? 'Lax'}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

export function writeCookie(name: string, value: string, options: CookieOptions = {}): void {
  document.cookie = serialize(name, value, options);
}

export function deleteCookie(name: string, options: CookieOptions = {}): void {
  document.cookie = serialize(name, '', { ...options, maxAgeSeconds: 0 });
}
