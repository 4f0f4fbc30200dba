import { describe, expect, it } from 'vitest';
import { memoized } from './memo.js';

describe('memoized', () => {
  it('computes once per argument and forgets the least recently used beyond its size', () => {
    const calls: string[] = [];
    const upper = memoized((key) => {
      calls.push(key);
      return key.toUpperCase();
    }, 2);
    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(calls).toEqual(['a', 'b']);
    upper('c'); // forgets b (a was used more recently)
    upper('a');
    upper('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('does not keep a failed computation', () => {
    let n = 0;
    const flaky = memoized(() => {
      n += 1;
      if (n === 1) throw new Error('first');
      return n;
    });
    expect(() => flaky('x')).toThrow('first');
    expect(flaky('x')).toBe(2);
    expect(flaky('x')).toBe(2);
  });
});
