import { describe, expect, it } from 'vitest';
import { normalizeUsername, usernameKey, usernameProblem } from './usernames.js';

describe('usernames', () => {
  it('folds case, compatibility forms and look-alikes of other scripts into one key', () => {
    const key = usernameKey('admin');
    for (const other of ['ADMIN', ' admin ', '\u0430dmin', '\uff41\uff44\uff4d\uff49\uff4e', 'adm\u0456n']) {
      expect(usernameKey(other), other).toBe(key);
    }
    expect(usernameKey('rn')).toBe(usernameKey('m'));
    expect(usernameKey('alice')).not.toBe(usernameKey('alicia'));
  });

  it('keeps letters of every script, digits and . _ - @ +', () => {
    for (const name of ['ada', 'zhang.wei', '张伟', 'Ünal_2', 'ops+ci@example.com', 'José']) {
      expect(usernameProblem(normalizeUsername(name)), name).toBeNull();
    }
  });

  it('refuses controls, format characters, spaces, markup and over-long names', () => {
    for (const name of ['a\u0000b', 'a\u200bb', 'a\u202eb', 'a b', 'a<b', 'a"b', 'a'.repeat(65)]) {
      expect(usernameProblem(normalizeUsername(name)), JSON.stringify(name)).toBe('usernameInvalid');
    }
    expect(usernameProblem(normalizeUsername('  '))).toBe('usernameEmpty');
  });
});
