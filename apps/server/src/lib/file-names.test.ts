import { describe, expect, it } from 'vitest';
import { sanitizeContentType } from './file-names.js';

describe('sanitizeContentType', () => {
  it('keeps a MIME type as data, lower-cased, within the 128 characters its columns hold', () => {
    expect(sanitizeContentType(' Model/3MF ')).toBe('model/3mf');
    const longest = `${'a'.repeat(63)}/${'b'.repeat(64)}`;
    expect(longest).toHaveLength(128);
    expect(sanitizeContentType(longest)).toBe(longest);
    // each side within its 64, the whole one character over
    expect(sanitizeContentType(`${'a'.repeat(64)}/${'b'.repeat(64)}`)).toBe('application/octet-stream');
  });

  it('answers application/octet-stream for anything that is not one', () => {
    for (const raw of [undefined, '', 'text', 'text/html; charset=utf-8', 'a/b\r\nX-Evil: 1', '../etc/passwd']) {
      expect(sanitizeContentType(raw), String(raw)).toBe('application/octet-stream');
    }
  });
});
