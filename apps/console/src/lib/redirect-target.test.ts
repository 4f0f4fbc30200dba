import { describe, expect, it } from 'vitest';
import { resolveRedirectTarget } from './redirect-target';

describe('resolveRedirectTarget', () => {
  const publicUrl = 'http://localhost:3000';

  it('keeps relative paths inside the console', () => {
    expect(resolveRedirectTarget('/users?pageNum=2', publicUrl)).toEqual({ kind: 'internal', path: '/users?pageNum=2' });
    expect(resolveRedirectTarget(null, publicUrl)).toEqual({ kind: 'internal', path: '/' });
  });

  it('accepts an absolute address under the canonical address', () => {
    expect(resolveRedirectTarget('http://localhost:3000/groups#x', publicUrl)).toEqual({ kind: 'internal', path: '/groups#x' });
    expect(resolveRedirectTarget('https://manifold.example/console/users', 'https://manifold.example/console')).toEqual({
      kind: 'external',
      url: 'https://manifold.example/console/users',
    });
  });

  it('refuses other absolute addresses', () => {
    expect(resolveRedirectTarget('https://evil.example/phish', publicUrl)).toBe('unsafe');
    expect(resolveRedirectTarget('//evil.example/phish', publicUrl)).toBe('unsafe');
    expect(resolveRedirectTarget('/\\evil.example', publicUrl)).toBe('unsafe');
    expect(resolveRedirectTarget('javascript:alert(1)', publicUrl)).toBe('unsafe');
    expect(resolveRedirectTarget('http://localhost:3000.evil.example/', publicUrl)).toBe('unsafe');
    expect(resolveRedirectTarget('https://manifold.example/consoleevil', 'https://manifold.example/console')).toBe('unsafe');
  });
});
