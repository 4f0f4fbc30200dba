/** Where a text stops being JSON: its line and column (from 1), or `end` when it ends too soon. */
export type JsonProblem = { at: 'end' } | { at: 'place'; line: number; column: number };

const whitespace = new Set([' ', '\t', '\n', '\r']);
const escapes = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const digit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const hex = (char: string | undefined) => char !== undefined && /^[0-9a-fA-F]$/.test(char);

/**
 * The offset of the first character of `text` that JSON (RFC 8259, as `JSON.parse` reads it)
 * does not allow there: `text.length` when it ends before its value does; null when it is JSON.
 * Read without recursion, so no nesting is too deep for it.
 */
export function jsonErrorOffset(text: string): number | null {
  const end = text.length;
  let i = 0;
  const skipWhitespace = () => {
    while (i < end && whitespace.has(text[i]!)) i += 1;
  };
  /** A string from its opening quote at `i`: true once past its closing quote. */
  const string = (): boolean => {
    i += 1;
    while (i < end) {
      const char = text[i]!;
      if (char === '"') {
        i += 1;
        return true;
      }
      if (char < ' ') return false;
      if (char === '\\') {
        const escaped = text[i + 1];
        if (escaped === 'u') {
          for (let k = 2; k < 6; k += 1) {
            if (!hex(text[i + k])) {
              i = Math.min(i + k, end);
              return false;
            }
          }
          i += 6;
        } else if (escaped !== undefined && escapes.has(escaped)) i += 2;
        else {
          i += 1;
          return false;
        }
      } else i += 1;
    }
    return false;
  };
  /** A number from `i`: true once past it. */
  const number = (): boolean => {
    if (text[i] === '-') i += 1;
    if (text[i] === '0') i += 1;
    else if (digit(text[i])) while (digit(text[i])) i += 1;
    else return false;
    if (text[i] === '.') {
      i += 1;
      if (!digit(text[i])) return false;
      while (digit(text[i])) i += 1;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i += 1;
      if (text[i] === '+' || text[i] === '-') i += 1;
      if (!digit(text[i])) return false;
      while (digit(text[i])) i += 1;
    }
    return true;
  };
  /** `word` (true, false, null) at `i`: true once past it. */
  const literal = (word: string): boolean => {
    for (const char of word) {
      if (text[i] !== char) return false;
      i += 1;
    }
    return true;
  };
  /** A member's name and its colon, from `i`: true once past the colon. */
  const name = (): boolean => {
    skipWhitespace();
    if (text[i] !== '"' || !string()) return false;
    skipWhitespace();
    if (text[i] !== ':') return false;
    i += 1;
    return true;
  };

  // the objects and arrays open around the value read next
  const open: ('{' | '[')[] = [];
  for (;;) {
    // a value
    skipWhitespace();
    const first = text[i];
    let read: boolean;
    if (first === '{') {
      i += 1;
      skipWhitespace();
      if (text[i] === '}') {
        i += 1;
        read = true;
      } else {
        if (!name()) return Math.min(i, end);
        open.push('{');
        continue;
      }
    } else if (first === '[') {
      i += 1;
      skipWhitespace();
      if (text[i] === ']') {
        i += 1;
        read = true;
      } else {
        open.push('[');
        continue;
      }
    } else if (first === '"') read = string();
    else if (first === 't') read = literal('true');
    else if (first === 'f') read = literal('false');
    else if (first === 'n') read = literal('null');
    else if (first === '-' || digit(first)) read = number();
    else read = false;
    if (!read) return Math.min(i, end);

    // after a value: the next member or element, or the end of what holds it
    for (;;) {
      skipWhitespace();
      const around = open.at(-1);
      if (around === undefined) return i === end ? null : i;
      const char = text[i];
      if (char === ',') {
        i += 1;
        if (around === '{' && !name()) return Math.min(i, end);
        break;
      }
      if ((around === '{' && char === '}') || (around === '[' && char === ']')) {
        i += 1;
        open.pop();
        continue;
      }
      return Math.min(i, end);
    }
  }
}

/** Where `text` stops being JSON, or null when it is JSON. */
export function jsonProblem(text: string): JsonProblem | null {
  const offset = jsonErrorOffset(text);
  if (offset === null) return null;
  if (offset >= text.length) return { at: 'end' };
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return {
    at: 'place',
    line: before.split('\n').length,
    // counted in characters as the reader sees them, not in UTF-16 units
    column: [...before.slice(lineStart)].length + 1,
  };
}
