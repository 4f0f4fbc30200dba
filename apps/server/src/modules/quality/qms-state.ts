import type { TInspectionResult } from '@manifold/contract';
import type { PartsTable } from '../../db/schema-trace.js';

/**
 * A part can be inspected when its job made it: pending inspection (`MANUFACTURED`), made with
 * no QMS step (`NO_QMS_STEP`), or inspected before (re-inspection). A part its job failed or
 * cancelled (`FAILURE` or `CANCELED` with no inspection) was never made and cannot be.
 */
export function isInspectable(part: { qms_state: PartsTable['qms_state']; inspection_result: string | null }): boolean {
  if (part.inspection_result !== null) return true;
  return part.qms_state === 'MANUFACTURED' || part.qms_state === 'NO_QMS_STEP';
}

/** Passing keeps (or makes) the part `MANUFACTURED`; failing makes it `FAILURE`. */
export function qmsStateAfter(result: TInspectionResult): PartsTable['qms_state'] {
  return result === 'passed' ? 'MANUFACTURED' : 'FAILURE';
}
