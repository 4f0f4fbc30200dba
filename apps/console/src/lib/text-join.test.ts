import { describe, expect, it } from 'vitest';
import { testI18n } from '../test/render';
import { formatList, joinSentences } from './text-join';

describe("lists and sentences in the reader's language", () => {
  it("lists items with each language's separators", () => {
    expect(formatList(testI18n('en').t, ['Visual', 'Dimensional', 'CT scan'])).toBe('Visual, Dimensional, CT scan');
    expect(formatList(testI18n('zh').t, ['外观', '尺寸', 'CT 扫描'])).toBe('外观、尺寸、CT 扫描');
    expect(formatList(testI18n('es').t, ['Visual', 'Dimensional', 'TC'])).toBe('Visual, Dimensional y TC');
    expect(formatList(testI18n('zh').t, ['10.0.0.1'])).toBe('10.0.0.1');
    expect(formatList(testI18n('en').t, [])).toBe('');
  });

  it('ends each of several with a full stop and puts a space between them, except in Chinese', () => {
    expect(joinSentences(testI18n('en').t, ['The name is taken.', 'The file is too large.'])).toBe(
      'The name is taken. The file is too large.',
    );
    expect(joinSentences(testI18n('zh').t, ['名称已被使用。', '文件过大。', '请重试。'])).toBe(
      '名称已被使用。文件过大。请重试。',
    );
    expect(joinSentences(testI18n('en').t, ['The name is taken', 'Too large!'])).toBe('The name is taken. Too large!');
    expect(joinSentences(testI18n('zh').t, ['名称已被使用', '文件过大'])).toBe('名称已被使用。文件过大。');
    expect(joinSentences(testI18n('es').t, ['Uno'])).toBe('Uno');
    expect(joinSentences(testI18n('zh').t, [])).toBe('');
  });
});
