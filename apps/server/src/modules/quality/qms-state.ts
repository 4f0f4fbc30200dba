import type { TInspectionResult } from '@manifold/contract';
import type { PartsTable } from '../../db/schema-trace.js';
import { wasMade } from '../events/made-parts.repository.js';

/**
 * A part can be inspected when its job made it: pending inspection (`MANUFACTURED`), made with
 * no QMS step (`NO_QMS_STEP`), or inspected before (re-inspection). A part its job failed or
 * cancelled (`FAILURE` or `CANCELED` with no inspection) was never made and cannot be.
 */
export const isInspectable = wasMade;

/** Passing keeps (or makes) the part `MANUFACTURED`; failing makes it `FAILURE`. */
export function qmsStateAfter(result: TInspectionResult): PartsTable['qms_state'] {
  return result === 'passed' ? 'MANUFACTURED' : 'FAILURE';
}
