import { describe, expect, it } from 'vitest';
import en from '../../../../public/locales/en.json';
import es from '../../../../public/locales/es.json';
import zh from '../../../../public/locales/zh.json';
import { maxDescriptionLength } from '../../../components/page-head';

/** The page descriptions of the traceability, quality, outbox and network screens (their `ListHeader`s). */
const descriptionKeys = [
  'trace.events.description',
  'trace.builds.description',
  'trace.build.description',
  'trace.parts.description',
  'trace.part.description',
  'trace.audit.description',
  'trace.machineData.description',
  'queue.description',
  'outbox.description',
  'quality.description',
  'quality.inspectDescription',
  'svp.description',
  'network.manage.description',
  'network.trace.description',
  'network.protect.description',
];

function message(file: unknown, key: string): string {
  const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], file);
  if (typeof value !== 'string') throw new Error(`No message ${key}`);
  return value;
}

describe('page descriptions of the trace, quality, outbox and network screens', () => {
  it.each([
    ['en', en],
    ['zh', zh],
    ['es', es],
  ])('fit the page head in %s (no "keep it within" warning)', (_locale, file) => {
    const tooLong = descriptionKeys
      .map((key) => [key, message(file, key).length] as const)
      .filter(([, length]) => length > maxDescriptionLength);
    expect(tooLong).toEqual([]);
  });
});
