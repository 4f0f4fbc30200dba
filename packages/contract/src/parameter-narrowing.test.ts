import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TDeviceParameter, ZDeviceParameter } from './device-template.js';
import { boundsOf, narrowingProblems, parameterSetProblems } from './parameter-narrowing.js';

const parameter = (fields: Partial<TDeviceParameter> & Pick<TDeviceParameter, 'type'>): TDeviceParameter =>
  ZDeviceParameter.parse({ parameterId: 'p', ...fields });

const tokens = (problems: { token: string }[]) => problems.map((p) => p.token).sort();

/** A numeric range parameter with an optional carried value inside it. */
const rangeParameter = fc
  .tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.boolean(), fc.boolean())
  .map(([low, width, withValue, required]) =>
    parameter({
      type: 'integer',
      low,
      high: low + width,
      required,
      valueList: withValue || required ? [low + Math.floor(width / 2)] : undefined,
    }),
  );

/** A sub-range of a parent range, with a value inside the sub-range. */
const narrowerOf = (parent: TDeviceParameter) =>
  fc
    .tuple(fc.integer({ min: parent.low!, max: parent.high! }), fc.integer({ min: parent.low!, max: parent.high! }))
    .map(([a, b]) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      return parameter({
        type: 'integer',
        low,
        high,
        required: parent.required,
        valueList: [low + Math.floor((high - low) / 2)],
      });
    });

describe('narrowingProblems: properties', () => {
  it('a parameter never breaks its own bound', () => {
    fc.assert(
      fc.property(rangeParameter, fc.constantFrom('order' as const, 'device' as const), (p, source) => {
        expect(narrowingProblems(p, p, source, 'policy')).toEqual([]);
      }),
    );
  });

  it('any sub-range with a value inside it is accepted', () => {
    fc.assert(
      fc.property(
        rangeParameter.chain((parent) => fc.tuple(fc.constant(parent), narrowerOf(parent))),
        ([parent, child]) => {
          expect(narrowingProblems(parent, child, 'order', 'authorize')).toEqual([]);
        },
      ),
    );
  });

  it('narrowing is transitive: a narrowing of a narrowing narrows the original', () => {
    fc.assert(
      fc.property(
        rangeParameter.chain((a) => narrowerOf(a).chain((b) => fc.tuple(fc.constant(a), fc.constant(b), narrowerOf(b)))),
        ([a, b, c]) => {
          expect(narrowingProblems(a, b, 'order', 'policy')).toEqual([]);
          expect(narrowingProblems(b, c, 'order', 'policy')).toEqual([]);
          expect(narrowingProblems(a, c, 'order', 'policy')).toEqual([]);
        },
      ),
    );
  });

  it('a range reaching past either end of its bound is refused with the range token of the context', () => {
    fc.assert(
      fc.property(rangeParameter, fc.integer({ min: 1, max: 50 }), fc.boolean(), (parent, by, lowSide) => {
        const child = parameter({
          type: 'integer',
          low: lowSide ? parent.low! - by : parent.low!,
          high: lowSide ? parent.high! : parent.high! + by,
          valueList: parent.valueList,
          required: parent.required,
        });
        expect(tokens(narrowingProblems(parent, child, 'order', 'policy'))).toEqual(['rangeExpandsPreviousRange']);
        expect(tokens(narrowingProblems(parent, child, 'device', 'authorize'))).toEqual(['invalidRangeExpandsPreviousRange']);
      }),
    );
  });

  it('a value outside the bound is refused, inside accepted', () => {
    fc.assert(
      fc.property(rangeParameter, fc.integer({ min: -3000, max: 3000 }), (parent, value) => {
        const child = parameter({
          type: 'integer',
          low: parent.low,
          high: parent.high,
          required: parent.required,
          valueList: [value],
        });
        const inside = value >= parent.low! && value <= parent.high!;
        const problems = tokens(narrowingProblems(parent, child, 'order', 'authorize'));
        expect(problems).toEqual(inside ? [] : ['invalidValueOutOfRange']);
      }),
    );
  });

  it('INCREASE lets a value move only up from where it stands, DECREASE only down', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -300, max: 300 }), (start, value) => {
        const up = parameter({ type: 'integer', low: -200, high: 200, adjust: 'INCREASE', valueList: [start] });
        const down = parameter({ type: 'integer', low: -200, high: 200, adjust: 'DECREASE', valueList: [start] });
        const childOf = (adjust: 'INCREASE' | 'DECREASE') =>
          parameter({ type: 'integer', low: -200, high: 200, adjust, valueList: [value] });
        const inRange = value >= -200 && value <= 200;
        expect(narrowingProblems(up, childOf('INCREASE'), 'order', 'policy').length === 0).toBe(inRange && value >= start);
        expect(narrowingProblems(down, childOf('DECREASE'), 'order', 'policy').length === 0).toBe(inRange && value <= start);
        expect(boundsOf(up).low).toBe(Math.max(-200, start));
        expect(boundsOf(down).high).toBe(Math.min(200, start));
      }),
    );
  });

  it('a LOCKed value cannot change, and LOCK cannot be loosened', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (locked, value) => {
        const parent = parameter({ type: 'integer', low: 0, high: 100, adjust: 'LOCK', valueList: [locked] });
        const child = parameter({ type: 'integer', low: 0, high: 100, adjust: 'LOCK', valueList: [value] });
        expect(tokens(narrowingProblems(parent, child, 'order', 'policy'))).toEqual(
          value === locked ? [] : ['parameterValueNotEqualToPreexistingParameterValue'],
        );
        const loosened = parameter({ type: 'integer', low: 0, high: 100, adjust: 'FREE', valueList: [locked] });
        expect(tokens(narrowingProblems(parent, loosened, 'device', 'policy'))).toEqual([
          'parameterBroadensPreexistingParameterSetByDevice',
        ]);
      }),
    );
  });

  it('a choice list may only shrink; values must come from it', () => {
    const all = ['PLA', 'PETG', 'ABS', 'TPU', 'PA12'];
    fc.assert(
      fc.property(
        fc.subarray(all, { minLength: 1 }),
        fc.subarray(all, { minLength: 1 }),
        fc.constantFrom(...all),
        (parentList, childList, value) => {
          const parent = parameter({ type: 'choice', choicePresent: true, choiceList: parentList });
          const child = parameter({ type: 'choice', choicePresent: true, choiceList: childList, valueList: [value] });
          const problems = tokens(narrowingProblems(parent, child, 'order', 'authorize'));
          const broadens = childList.some((c) => !parentList.includes(c));
          expect(problems.includes('parameterBroadensPreexistingParameterSetByOrder')).toBe(broadens);
          expect(problems.includes('invalidValueNotFoundInChoiceList')).toBe(!parentList.includes(value));
        },
      ),
    );
  });
});

describe('narrowingProblems: named rules', () => {
  it('refuses a different data type and compares nothing else', () => {
    const parent = parameter({ type: 'integer', low: 0, high: 10 });
    const child = parameter({ type: 'decimal', low: -5, high: 50 });
    expect(tokens(narrowingProblems(parent, child, 'order', 'policy'))).toEqual([
      'parameterDataTypeNotEqualToPreexistingParameterDataType',
    ]);
  });

  it('keeps the initial choices of a required parent', () => {
    const parent = parameter({
      type: 'choice',
      choicePresent: true,
      choiceList: ['A', 'B', 'C'],
      required: true,
      valueList: ['B'],
    });
    const child = parameter({ type: 'choice', choicePresent: true, choiceList: ['A', 'C'], required: true, valueList: ['A'] });
    expect(tokens(narrowingProblems(parent, child, 'order', 'policy'))).toEqual(['choiceListDoesNotContainInitialChoices']);
    expect(tokens(narrowingProblems(parent, child, 'order', 'authorize'))).toEqual([
      'invalidChoiceListDoesNotContainInitialChoices',
    ]);
  });

  it('requires a value where the bound requires one, and one value where it is exclusive', () => {
    const required = parameter({ type: 'string', required: true, valueList: ['x'] });
    expect(tokens(narrowingProblems(required, parameter({ type: 'string', required: true }), 'order', 'authorize'))).toEqual([
      'invalidValueRequired',
    ]);
    expect(tokens(narrowingProblems(required, parameter({ type: 'string' }), 'order', 'policy'))).toEqual([
      'parameterBroadensPreexistingParameterSetByOrder',
      'valueRequired',
    ]);
    const exclusive = parameter({ type: 'string', exclusive: true });
    expect(
      tokens(
        narrowingProblems(
          exclusive,
          parameter({ type: 'string', exclusive: true, valueList: ['a', 'b'] }),
          'device',
          'authorize',
        ),
      ),
    ).toEqual(['invalidValueExclusiveAllowsOnlyOneValue']);
  });

  it('refuses a value of the wrong form', () => {
    const parent = parameter({ type: 'integer', low: 0, high: 10 });
    const child = parameter({ type: 'integer', low: 0, high: 10, valueList: [2.5] });
    expect(tokens(narrowingProblems(parent, child, 'order', 'authorize'))).toEqual(['invalidValueInput']);
    expect(tokens(narrowingProblems(parent, child, 'order', 'policy'))).toEqual(['invalidValueFormat']);
  });
});

describe('parameterSetProblems', () => {
  it('checks each child against the order and the device, and reports required parameters left without a value', () => {
    const order = [parameter({ parameterId: 'temp', type: 'integer', low: 180, high: 240 })];
    const device = [
      parameter({ parameterId: 'temp', type: 'integer', low: 190, high: 260 }),
      parameter({ parameterId: 'nozzle', type: 'decimal', required: true }),
    ];
    const children = [parameter({ parameterId: 'temp', type: 'integer', low: 185, high: 250, valueList: [200] })];
    const problems = parameterSetProblems(
      [
        { source: 'order', parameters: order },
        { source: 'device', parameters: device },
      ],
      children,
      'authorize',
    );
    expect(problems).toEqual([
      { token: 'invalidRangeExpandsPreviousRange', parameterId: 'temp', field: 'high' },
      { token: 'invalidRangeExpandsPreviousRange', parameterId: 'temp', field: 'low' },
      { token: 'authorizationMissingRequiredDeviceParameters', parameterId: 'nozzle', field: 'valueList' },
    ]);
  });
});
