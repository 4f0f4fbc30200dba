import { describe, expect, it } from 'vitest';
import { parseXmlSafely } from '../crypto/xml-signature.js';
import { xmldomKeepsRegexes } from './xmldom-regex-cache.js';

describe('xmldom keeps its regular expressions', () => {
  it('is in place once the XML code is loaded', () => {
    expect(xmldomKeepsRegexes()).toBe(true);
  });

  it('parses as before: end tags checked, names with any XML name characters', () => {
    const xml = '<a:root xmlns:a="urn:a"><a:item n="1">x</a:item><b>ü</b><Ω·-1.x>y</Ω·-1.x></a:root>';
    for (let i = 0; i < 3; i += 1) {
      const root = parseXmlSafely(xml).documentElement!;
      expect(root.childNodes.length).toBe(3);
      expect(root.lastChild!.nodeName).toBe('Ω·-1.x');
    }
    expect(() => parseXmlSafely('<a><b></b c></a>')).toThrow(expect.objectContaining({ reason: 'malformed' }));
    expect(() => parseXmlSafely('<a><b></c></a>')).toThrow(expect.objectContaining({ reason: 'malformed' }));
  });
});
