import {
  type TDeviceParameter,
  type TDeviceParameterValue,
  type TSvpAssociation,
  type TSvpParameterInput,
  valueProblems,
} from '@manifold/contract';
import type { ErrorCollector } from '../../lib/app-error.js';

/**
 * Where a value attaches, as its parameter's association says: `BUILD` a build only, `PART` a
 * part only, `BUILD_PART` a part and the build that made it. Answers the field at fault, or
 * undefined when the value attaches as it should.
 */
export function associationFault(
  association: TSvpAssociation,
  target: { partId: string | undefined; buildId: string | undefined; partBuildId: string | undefined },
): string | undefined {
  const { partId, buildId } = target;
  switch (association) {
    case 'BUILD':
      if (partId !== undefined) return 'partId';
      return buildId === undefined ? 'buildId' : undefined;
    case 'PART':
      if (buildId !== undefined) return 'buildId';
      return partId === undefined ? 'partId' : undefined;
    case 'BUILD_PART':
      if (partId === undefined) return 'partId';
      if (buildId === undefined || buildId !== target.partBuildId) return 'buildId';
      return undefined;
  }
}

/** A manual value as the device-parameter value rules see it: one value, required, a number in the range when the parameter has bounds. */
export function manualBound(parameter: { parameterId: string; low: number | null; high: number | null }): TDeviceParameter {
  const numeric = parameter.low !== null || parameter.high !== null;
  return {
    parameterId: parameter.parameterId,
    type: numeric ? 'decimal' : 'string',
    adjust: 'FREE',
    encrypt: false,
    choicePresent: false,
    exclusive: true,
    required: true,
    ...(parameter.low !== null ? { low: parameter.low } : {}),
    ...(parameter.high !== null ? { high: parameter.high } : {}),
  };
}

/** A manual entry checked with the value rules (`valueRequired`, `invalidValueFormat`, `valueOutOfRange`) on `value`. */
export function checkManualValue(bound: TDeviceParameter, value: string | undefined, problems: ErrorCollector): void {
  const trimmed = value?.trim() ?? '';
  let values: TDeviceParameterValue[] = [];
  if (trimmed !== '')
    values = [bound.type === 'decimal' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed];
  for (const problem of valueProblems(bound, values, 'policy')) problems.add(problem.token, 'value');
}

/** A template's parameters: bounds only on manual entries, low not above high, names unique. */
export function checkTemplateParameters(parameters: TSvpParameterInput[], problems: ErrorCollector): void {
  const names = new Set<string>();
  parameters.forEach((parameter, index) => {
    const at = `parameters[${index}]`;
    const bounded = parameter.low !== undefined || parameter.high !== undefined;
    if (bounded && parameter.dataType !== 'MANUAL_ENTRY') {
      problems.add(
        'parameterRangeNotAllowed',
        `${at}.${parameter.low !== undefined ? 'low' : 'high'}`,
        'Bounds apply to manual entries only',
      );
    }
    if (parameter.low !== undefined && parameter.high !== undefined && parameter.low > parameter.high) {
      problems.add('parameterRangeInvalid', `${at}.low`);
    }
    const key = parameter.name.toLowerCase();
    if (names.has(key)) problems.add('malformedRequest', `${at}.name`, 'Parameter names are unique within a template');
    names.add(key);
  });
}
