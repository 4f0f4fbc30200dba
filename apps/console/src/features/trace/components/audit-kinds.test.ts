import { auditEventTypes } from '@manifold/contract';
import { describe, expect, it } from 'vitest';
import en from '../../../../public/locales/en.json';

describe('audit kinds in the reader\u2019s language', () => {
  it('every audit kind has its words (the other languages have the same keys: locales.test.ts)', () => {
    const named: Record<string, string> = en.auditKinds;
    expect(auditEventTypes.filter((kind) => !named[kind])).toEqual([]);
  });
});
