import { describe, expect, it } from 'vitest';
import { checkedNodeName, nodeNameKey } from './node-names.js';

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
});
