import { describe, expect, it } from 'vitest';
import { canonicalJson, nestsDeeperThan } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every level, drops undefined and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });
});

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not scalars, and walks a value nested far past the stack without recursion', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'c' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'c' }] }, 2)).toBe(true);
    const depth = 200_000;
    const deep: unknown = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    expect(nestsDeeperThan(deep, 32)).toBe(true);
    expect(nestsDeeperThan(deep, depth)).toBe(false);
  });
});
