import type { TFunction } from 'i18next';

/**
 * Items as a list in the reader's language (`common.list`: Intl.ListFormat through i18next):
 * "a, b, c" in English, "a、b、c" in Chinese, "a, b y c" in Spanish.
 */
export function formatList(t: TFunction, items: readonly string[]): string {
  return items.length === 0 ? '' : t('common.list', { items });
}

/** A sentence's own end: Western and full-width stops, question and exclamation marks. */
const TERMINATED = /[.!?。！？]$/u;

/**
 * Messages one after another as sentences of the reader's language: a lone message as it is;
 * several each ended with the language's full stop where it has none (`common.sentence`) and
 * joined as the language joins sentences (`common.sentences`: a space in English and Spanish, none
 * in Chinese).
 */
export function joinSentences(t: TFunction, sentences: readonly string[]): string {
  if (sentences.length <= 1) return sentences[0] ?? '';
  return sentences
    .map((sentence) => sentence.trim())
    .map((sentence) => (TERMINATED.test(sentence) ? sentence : t('common.sentence', { text: sentence })))
    .reduce((joined, sentence) => t('common.sentences', { first: joined, rest: sentence }));
}
