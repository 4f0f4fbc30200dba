import { describe, expect, it } from 'vitest';
import { type AppError, AppErrors, ErrorCollector } from '../../lib/app-error.js';
import { associationFault, checkManualValue, checkTemplateParameters, manualBound } from './svp-rules.js';

const tokens = (run: (problems: ErrorCollector) => void) => {
  const problems = new ErrorCollector();
  run(problems);
  try {
    problems.throwIfAny();
    return [];
  } catch (error) {
    return (error instanceof AppErrors ? error.errors : [error as AppError]).map((e) => [e.token, e.field]);
  }
};

describe('trace parameter rules', () => {
  const part = 'p';
  const build = 'b';

  it('attaches a value as its association says', () => {
    expect(associationFault('BUILD', { partId: undefined, buildId: build, partBuildId: undefined })).toBeUndefined();
    expect(associationFault('BUILD', { partId: part, buildId: build, partBuildId: build })).toBe('partId');
    expect(associationFault('PART', { partId: part, buildId: undefined, partBuildId: build })).toBeUndefined();
    expect(associationFault('PART', { partId: undefined, buildId: undefined, partBuildId: undefined })).toBe('partId');
    expect(associationFault('BUILD_PART', { partId: part, buildId: build, partBuildId: build })).toBeUndefined();
    expect(associationFault('BUILD_PART', { partId: part, buildId: 'other', partBuildId: build })).toBe('buildId');
  });

  it('checks a manual value with the value rules', () => {
    const bound = manualBound({ parameterId: 'x', low: 1, high: 2 });
    expect(tokens((p) => checkManualValue(bound, '1.5', p))).toEqual([]);
    expect(tokens((p) => checkManualValue(bound, '2.5', p))).toEqual([['valueOutOfRange', 'value']]);
    expect(tokens((p) => checkManualValue(bound, 'abc', p))).toEqual([['invalidValueFormat', 'value']]);
    expect(tokens((p) => checkManualValue(bound, ' ', p))).toEqual([['valueRequired', 'value']]);
    const text = manualBound({ parameterId: 'y', low: null, high: null });
    expect(tokens((p) => checkManualValue(text, 'looks fine', p))).toEqual([]);
  });

  it('refuses bounds on files, inverted bounds and repeated names', () => {
    expect(
      tokens((p) =>
        checkTemplateParameters(
          [
            { name: 'a', dataType: 'FILE', association: 'PART', low: 1, required: false },
            { name: 'A', dataType: 'MANUAL_ENTRY', association: 'PART', low: 3, high: 2, required: false },
          ],
          p,
        ),
      ),
    ).toEqual([
      ['parameterRangeNotAllowed', 'parameters[0].low'],
      ['parameterRangeInvalid', 'parameters[1].low'],
      ['malformedRequest', 'parameters[1].name'],
    ]);
  });
});
