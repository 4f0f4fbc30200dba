import type { TQualityStatistics } from '@manifold/contract';

/** The statistics of a quality search that found no inspection. */
export const noQualityStatistics: TQualityStatistics = {
  inspected: 0,
  passed: 0,
  failed: 0,
  passRate: null,
  failuresByReason: [],
  byMachine: [],
  byDesign: [],
  bySupplier: [],
  overTime: [],
};
