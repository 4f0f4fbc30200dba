import { describe, expect, it } from 'vitest';
import { isStorageFileName } from './typed-storage.service.js';

describe('isStorageFileName', () => {
  it.each(['design.dsi', 'Design One v2.stl', 'a_b-c.txt', '1'])('accepts %s', (name) => {
    expect(isStorageFileName(name)).toBe(true);
  });

  it.each(['', '.', '..', '.hidden', '../x', 'a/b', 'a\\b', 'a..b', ' lead', 'trail ', 'tab\there', 'é.txt', 'x'.repeat(256)])(
    'refuses %j',
    (name) => {
      expect(isStorageFileName(name)).toBe(false);
    },
  );
});
