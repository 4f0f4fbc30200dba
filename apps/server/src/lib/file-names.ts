/**
 * The characters no name a user sees may hold: C0 and C1 controls, and the bidirectional
 * formatting characters that make a name display other than it reads (`invoice\u202Efdp.exe`
 * shows as `invoiceexe.pdf`). A character class's contents, for `new RegExp(`[…]`)`.
 */
export const UNSAFE_NAME_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${UNSAFE_NAME_CHARACTERS}]`, 'g');

/**
 * File names from requests are data, never paths: this keeps the last path segment, drops
 * the characters of {@link UNSAFE_NAME_CHARACTERS} and limits the length. Storage uses generated keys.
 */
export function sanitizeFileName(raw: string | undefined): string {
  const lastSegment = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = lastSegment.replace(UNSAFE, '').trim();
  const safe = cleaned === '.' || cleaned === '..' ? '' : cleaned;
  const name = (safe || 'file').slice(0, 255);
  // never half a character: a cut between a surrogate pair's halves (an emoji) drops the lone half
  return /[\uD800-\uDBFF]$/.test(name) ? name.slice(0, -1) : name;
}

/** A MIME type as data (`type/subtype`), or `application/octet-stream` when it is not one. */
export function sanitizeContentType(raw: string | undefined): string {
  const value = (raw ?? '').trim().toLowerCase();
  // at most 128 characters: what the content-type columns hold
  return value.length <= 128 && /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(value)
    ? value
    : 'application/octet-stream';
}

/** `Content-Disposition: attachment` with an ASCII fallback and the UTF-8 name (RFC 6266, 8187). */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
