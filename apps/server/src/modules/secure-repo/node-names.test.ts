import { describe, expect, it } from 'vitest';
import { checkedNodeName, NODE_NAME_KEY_MAX_LENGTH, nodeNameKey } from './node-names.js';

describe('secure repository names', () => {
  it.each(['Drawings', 'part v2.stl', '設計図', 'a..b.txt', '.hidden', 'x'.repeat(255)])('accepts %j', (name) => {
    expect(checkedNodeName(name, 'folderName')).toBe(name);
  });

  it('trims and normalises to NFC', () => {
    expect(checkedNodeName('  cafe\u0301 ', 'folderName')).toBe('caf\u00e9');
  });

  it.each([
    '',
    '   ',
    '.',
    '..',
    '../etc',
    'a/b',
    'a\\b',
    '..\\..\\boot.ini',
    'tab\there',
    'line\nbreak',
    'bell\u0007',
    'c1\u0085',
    'invoice\u202efdp.exe',
    'x'.repeat(256),
  ])('refuses %j with secureRepoNameInvalid naming the field', (name) => {
    expect(() => checkedNodeName(name, 'file')).toThrow(
      expect.objectContaining({ token: 'secureRepoNameInvalid', field: 'file' }),
    );
  });

  it('folds case for uniqueness', () => {
    expect(nodeNameKey('Report.PDF')).toBe(nodeNameKey('report.pdf'));
    expect(nodeNameKey('caf\u00e9')).toBe(nodeNameKey('cafe\u0301'));
  });

  it('keeps the key within its column when folding lengthens a name (İ), one key per name ignoring case', () => {
    const name = `${'\u0130'.repeat(200)}${'A'.repeat(55)}`;
    expect(checkedNodeName(name, 'folderName')).toBe(name);
    const key = nodeNameKey(name);
    expect(Array.from(key).length).toBeLessThanOrEqual(NODE_NAME_KEY_MAX_LENGTH);
    expect(key).toBe(nodeNameKey(`${'\u0130'.repeat(200)}${'a'.repeat(55)}`));
    expect(key).not.toBe(nodeNameKey(`${'\u0130'.repeat(200)}${'a'.repeat(54)}b`));
    expect(nodeNameKey('x'.repeat(255))).toBe('x'.repeat(255));
  });
});
