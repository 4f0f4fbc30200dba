import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { sessionQueryOptions } from './session';

/** An ISO-8601 instant in the reader's language and time zone; the raw text when it is no date. */
export function formatDateTime(iso: string, language: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date);
  } catch {
    return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
  }
}

/** Formats instants in the console's language and the signed-in user's time zone (time zones only at display). */
export function useDateTimeFormat(): (iso: string) => string {
  const { i18n } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const timeZone = session.data?.userProfile.timeZone;
  const language = i18n.language;
  return useCallback((iso: string) => formatDateTime(iso, language, timeZone), [language, timeZone]);
}

/** A byte count with a binary unit, e.g. 1.5 MiB. */
export function formatBytes(bytes: number, language: string): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}
