import {
  QUALITY_SEARCH_MAX_DAYS,
  qualitySortFields,
  type TQualitySearchRequest,
  type TQualitySortField,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The inspection-time bounds of a search: `from` inclusive, `until` exclusive, ISO-8601 UTC. */
export interface SearchWindow {
  from: string | undefined;
  until: string | undefined;
}

function dayStart(day: string, field: string): number {
  const time = Date.parse(`${day}T00:00:00.000Z`);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== day) {
    throw new AppError('malformedRequest', { field, description: `${field}: not a calendar day` });
  }
  return time;
}

/**
 * What a search can answer (spec §8: 406 on quality search): a known sort field
 * (`qualitySearchSortUnknown`), and a day range of at most {@link QUALITY_SEARCH_MAX_DAYS} days
 * (`qualitySearchRangeTooLarge`). A range that ends before it starts is malformed (400).
 */
export function searchPlan(request: Pick<TQualitySearchRequest, 'sortBy' | 'from' | 'to'>): {
  sortBy: TQualitySortField;
  window: SearchWindow;
} {
  if (!(qualitySortFields as readonly string[]).includes(request.sortBy)) {
    throw new AppError('qualitySearchSortUnknown', {
      field: 'sortBy',
      description: `The search sorts by ${qualitySortFields.join(', ')}`,
    });
  }
  const from = request.from === undefined ? undefined : dayStart(request.from, 'from');
  const until = request.to === undefined ? undefined : dayStart(request.to, 'to') + DAY_MS;
  if (from !== undefined && until !== undefined) {
    if (until <= from)
      throw new AppError('malformedRequest', { field: 'to', description: 'to: the range ends before it starts' });
    if ((until - from) / DAY_MS > QUALITY_SEARCH_MAX_DAYS) {
      throw new AppError('qualitySearchRangeTooLarge', {
        field: 'to',
        description: `A search covers at most ${QUALITY_SEARCH_MAX_DAYS} days`,
      });
    }
  }
  return {
    sortBy: request.sortBy as TQualitySortField,
    window: {
      from: from === undefined ? undefined : new Date(from).toISOString(),
      until: until === undefined ? undefined : new Date(until).toISOString(),
    },
  };
}

/** passed / inspected, rounded to four decimals; null when nothing was inspected. */
export function passRate(passed: number, inspected: number): number | null {
  return inspected === 0 ? null : Math.round((passed / inspected) * 10_000) / 10_000;
}
