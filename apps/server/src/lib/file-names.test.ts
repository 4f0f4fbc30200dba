import { describe, expect, it } from 'vitest';
import { sanitizeContentType, sanitizeFileName } from './file-names.js';

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

describe('sanitizeFileName', () => {
  it('keeps the last segment of a path, without control characters, never . or ..', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('C:\\parts\\bracket.3mf')).toBe('bracket.3mf');
    expect(sanitizeFileName('a\u0000b\u001fc.stl')).toBe('abc.stl');
    // nor a name that displays other than it reads: bidirectional formatting and C1 controls
    expect(sanitizeFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(sanitizeFileName('a\u2066b\u2069\u200fc\u0085.stl')).toBe('abc.stl');
    for (const raw of [undefined, '', '..', 'x/.', '  ']) expect(sanitizeFileName(raw), String(raw)).toBe('file');
  });

  it('cuts a long name at 255 UTF-16 units, never between the halves of a character', () => {
    expect(sanitizeFileName('a'.repeat(300))).toBe('a'.repeat(255));
    // 254 letters, then an emoji of two units: the 255th unit would be its first half alone
    const cut = sanitizeFileName(`${'a'.repeat(254)}\u{1F600}.stl`);
    expect(cut).toBe('a'.repeat(254));
    expect(sanitizeFileName(`${'a'.repeat(253)}\u{1F600}.stl`)).toBe(`${'a'.repeat(253)}\u{1F600}`);
  });
});
