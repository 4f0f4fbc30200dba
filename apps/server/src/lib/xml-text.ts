/**
 * Characters XML 1.0 cannot carry (C0 controls but tab, line feed and carriage return; U+FFFE,
 * U+FFFF; lone surrogates). Names, notes and tracking values end up in signed XML documents,
 * which standard parsers reject when they hold one of these.
 */
export function hasXmlForbidden(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return true;
    if (code === 0xfffe || code === 0xffff) return true;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i += 1;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}
