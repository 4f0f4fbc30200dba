import { describe, expect, it } from 'vitest';
import type { TQualityParameter } from '@manifold/contract';
import { ErrorCollector, type AppError, AppErrors } from '../../lib/app-error.js';
import { checkInspectionValues, inspectedParameters } from './inspection-values.js';
import { finishParameter as finish, heightParameter as height } from '../../../test/helpers/quality-fixtures.js';

function problemsOf(parameters: TQualityParameter[], given: { id: string; values: (string | number | boolean)[] }[]) {
  const problems = new ErrorCollector();
  checkInspectionValues(parameters, given, problems);
  try {
    problems.throwIfAny();
    return [];
  } catch (error) {
    const errors = error instanceof AppErrors ? error.errors : [error as AppError];
    return errors.map((e) => [e.token, e.field]);
  }
}

describe('inspection values', () => {
  it('accepts values inside the range and from the choice list', () => {
    expect(
      problemsOf(
        [height, finish],
        [
          { id: 'height', values: [11.5] },
          { id: 'finish', values: ['matte'] },
        ],
      ),
    ).toEqual([]);
  });

  it('refuses a value out of range, naming the value', () => {
    expect(problemsOf([height], [{ id: 'height', values: [12.5] }])).toEqual([
      ['valueOutOfRange', 'qualityParameters.height.values[0]'],
    ]);
  });

  it('refuses a missing required value even when the parameter carries a reset value', () => {
    expect(problemsOf([{ ...height, resetValue: 11 }], [])).toEqual([['valueRequired', 'qualityParameters.height.values']]);
  });

  it('refuses a value outside the choice list, a malformed value and an unknown parameter', () => {
    expect(
      problemsOf(
        [height, finish],
        [
          { id: 'height', values: ['tall'] },
          { id: 'finish', values: ['rough'] },
          { id: 'weight', values: [1] },
        ],
      ),
    ).toEqual([
      ['invalidValueFormat', 'qualityParameters.height.values[0]'],
      ['valueNotFoundInChoiceList', 'qualityParameters.finish.values[0]'],
      ['invalidValueFormat', 'qualityParameters.weight'],
    ]);
  });

  it('inspects against the authorization\u2019s narrowing of the order\u2019s parameters', () => {
    const narrowed = inspectedParameters([height, finish], [{ ...height, low: 11 }]);
    expect(narrowed.find((p) => p.id === 'height')?.low).toBe(11);
    expect(narrowed.map((p) => p.id).sort()).toEqual(['finish', 'height']);
  });
});
