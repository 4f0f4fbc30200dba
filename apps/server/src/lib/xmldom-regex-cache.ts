import { createRequire } from 'node:module';

/**
 * @xmldom/xmldom 0.9 builds a new regular expression (a large Unicode one, for XML names) with
 * `grammar.reg` for every end tag it reads (sax.js), and compiling it costs more than the rest of
 * the parse: a 4.5 kB document took 0.75 ms to parse, 0.3 ms with the expressions kept (upstream:
 * xmldom/xmldom#950, open). The expressions are pure functions of their parts and have neither the
 * `g` nor the `y` flag, so they hold no state between matches and can be shared: this keeps each
 * distinct one once. It replaces `reg` on the grammar module that sax.js reads it from, once per
 * process; `xmldomKeepsRegexes()` tells whether it is in place (a test holds it to that, so an
 * xmldom release that moves `reg` is noticed).
 */
const require = createRequire(import.meta.url);
const grammar = require('@xmldom/xmldom/lib/grammar.js') as {
  reg: ((...parts: (RegExp | string)[]) => RegExp) & { kept?: true };
};
/** The expressions kept, by their parts in turn (the grammar's own RegExp objects and strings). */
interface Kept {
  next: Map<RegExp | string, Kept>;
  expression?: RegExp;
}
const kept: Kept = { next: new Map() };
let keptCount = 0;
/** Nodes of the tree above, at most. */
const KEPT_AT_MOST = 256;

if (typeof grammar.reg === 'function' && !grammar.reg.kept) {
  const build = grammar.reg;
  const reg = function (this: unknown, ...parts: (RegExp | string)[]): RegExp {
    let node = kept;
    for (const part of parts) {
      let next = node.next.get(part);
      if (!next) {
        // a bounded cache: past the bound, new combinations are built every time as before
        if (keptCount >= KEPT_AT_MOST) return build.apply(this, parts);
        next = { next: new Map() };
        node.next.set(part, next);
        keptCount += 1;
      }
      node = next;
    }
    if (node.expression) return node.expression;
    const expression = build.apply(this, parts);
    if (!expression.global && !expression.sticky) node.expression = expression;
    return expression;
  };
  grammar.reg = Object.assign(reg, { kept: true as const });
}

/** Whether xmldom's parser now reuses its expressions. */
export function xmldomKeepsRegexes(): boolean {
  return grammar.reg.kept === true;
}
