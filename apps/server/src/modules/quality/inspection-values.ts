import { type TInspectionValue, type TQualityParameter, valueProblems } from '@manifold/contract';
import type { ErrorCollector } from '../../lib/app-error.js';
import { effectiveParameters } from '../licensing/authorization-document.js';
import { qualityAsDeviceParameter } from '../licensing/policy-check.js';

/** The quality parameters a part is inspected against: its authorization's, narrowing its order's. */
export function inspectedParameters(
  orderLayer: TQualityParameter[],
  authorizationLayer: TQualityParameter[],
): TQualityParameter[] {
  return effectiveParameters([authorizationLayer, orderLayer], (parameter) => parameter.id);
}

/**
 * The measured values against the quality parameters, with the device-parameter value rules
 * (`valueOutOfRange`, `invalidValueFormat`, `valueRequired`, `valueNotFoundInChoiceList`,
 * `valueExclusiveAllowsOnlyOneValue`, a locked value): each problem names
 * `qualityParameters.<id>.values[i]` (or `.values` for a missing one). A value for a parameter the
 * order does not have is `invalidValueFormat` on the parameter.
 */
export function checkInspectionValues(
  parameters: TQualityParameter[],
  given: TInspectionValue[],
  problems: ErrorCollector,
): void {
  const byId = new Map(given.map((entry) => [entry.id, entry.values]));
  const known = new Set(parameters.map((parameter) => parameter.id));
  for (const parameter of parameters) {
    const values = byId.get(parameter.id) ?? [];
    for (const problem of valueProblems(qualityAsDeviceParameter(parameter), values, 'policy')) {
      const at = problem.field.replace(/^valueList/, 'values');
      problems.add(problem.token, `qualityParameters.${parameter.id}.${at}`);
    }
  }
  const seen = new Set<string>();
  for (const entry of given) {
    if (!known.has(entry.id)) {
      problems.add('invalidValueFormat', `qualityParameters.${entry.id}`, 'The part\u2019s order has no such quality parameter');
    } else if (seen.has(entry.id)) {
      problems.add('invalidValueFormat', `qualityParameters.${entry.id}`, 'The parameter is given twice');
    }
    seen.add(entry.id);
  }
}
