import { type TDeviceParameter, type TDeviceParameterAdjust, type TDeviceParameterValue, valueFits } from './device-template.js';
import type { ErrorToken } from './errors.js';

/**
 * The licence chain's parameter rules (DOMAIN.md, "Parameters"): a parameter set by the order
 * or by the device is a bound; a parameter further down the chain (a policy narrowing an
 * upstream one, an authorization narrowing its order) may narrow it, never broaden it.
 *
 * The rules answer with the spec's tokens; in the authorize call (`context: 'authorize'`) the
 * value and range rules use the spec's `invalid…` variants.
 */
export type BoundSource = 'order' | 'device';
export type NarrowingContext = 'policy' | 'authorize';

export interface NarrowingProblem {
  token: ErrorToken;
  parameterId: string;
  /** The field of the narrowing parameter that breaks the bound. */
  field: string;
}

type Rule =
  'rangeExpands' | 'valueOutOfRange' | 'valueFormat' | 'valueRequired' | 'exclusive' | 'initialChoices' | 'notInChoiceList';

const ruleTokens: Record<NarrowingContext, Record<Rule, ErrorToken>> = {
  policy: {
    rangeExpands: 'rangeExpandsPreviousRange',
    valueOutOfRange: 'valueOutOfRange',
    valueFormat: 'invalidValueFormat',
    valueRequired: 'valueRequired',
    exclusive: 'valueExclusiveAllowsOnlyOneValue',
    initialChoices: 'choiceListDoesNotContainInitialChoices',
    notInChoiceList: 'valueNotFoundInChoiceList',
  },
  authorize: {
    rangeExpands: 'invalidRangeExpandsPreviousRange',
    valueOutOfRange: 'invalidValueOutOfRange',
    valueFormat: 'invalidValueInput',
    valueRequired: 'invalidValueRequired',
    exclusive: 'invalidValueExclusiveAllowsOnlyOneValue',
    initialChoices: 'invalidChoiceListDoesNotContainInitialChoices',
    notInChoiceList: 'invalidValueNotFoundInChoiceList',
  },
};

const broadensToken: Record<BoundSource, ErrorToken> = {
  order: 'parameterBroadensPreexistingParameterSetByOrder',
  device: 'parameterBroadensPreexistingParameterSetByDevice',
};

/** How far each adjust mode lets a value move; a child may keep its parent's mode or tighten it. */
const allowedAdjustChanges: Record<TDeviceParameterAdjust, readonly TDeviceParameterAdjust[]> = {
  FREE: ['FREE', 'INCREASE', 'DECREASE', 'LOCK'],
  INCREASE: ['INCREASE', 'LOCK'],
  DECREASE: ['DECREASE', 'LOCK'],
  LOCK: ['LOCK'],
};

export function isNumericParameter(parameter: Pick<TDeviceParameter, 'type'>): boolean {
  return parameter.type === 'integer' || parameter.type === 'decimal';
}

/** The values a parameter carries: its value list, else its reset value. */
export function carriedValues(parameter: Pick<TDeviceParameter, 'valueList' | 'resetValue'>): TDeviceParameterValue[] {
  if (parameter.valueList && parameter.valueList.length > 0) return parameter.valueList;
  return parameter.resetValue !== undefined ? [parameter.resetValue] : [];
}

/**
 * What a parameter further down the chain may still choose under this bound: the numeric range
 * (narrowed by INCREASE/DECREASE from the carried value), the choices, and whether the value is
 * locked. The console's parameter editor offers exactly these.
 */
export interface ParameterBounds {
  low: number | undefined;
  high: number | undefined;
  choices: string[] | undefined;
  lockedValue: TDeviceParameterValue | undefined;
}

export function boundsOf(parent: TDeviceParameter): ParameterBounds {
  const carried = carriedValues(parent);
  const start = typeof carried[0] === 'number' ? carried[0] : undefined;
  let low = parent.low;
  let high = parent.high;
  if (parent.adjust === 'INCREASE' && start !== undefined) low = low === undefined ? start : Math.max(low, start);
  if (parent.adjust === 'DECREASE' && start !== undefined) high = high === undefined ? start : Math.min(high, start);
  return {
    low,
    high,
    choices: parent.choiceList,
    lockedValue: parent.adjust === 'LOCK' ? carried[0] : undefined,
  };
}

/** Every way `child` breaks the bound `parent` (set by `source`) puts on it. */
export function narrowingProblems(
  parent: TDeviceParameter,
  child: TDeviceParameter,
  source: BoundSource,
  context: NarrowingContext,
): NarrowingProblem[] {
  const problems: NarrowingProblem[] = [];
  const tokens = ruleTokens[context];
  const add = (token: ErrorToken, field: string) => problems.push({ token, parameterId: child.parameterId, field });

  if (parent.type !== child.type) {
    add('parameterDataTypeNotEqualToPreexistingParameterDataType', 'type');
    return problems; // nothing else can be compared across types
  }
  const bounds = boundsOf(parent);
  const values = carriedValues(child);

  // the range itself
  if (isNumericParameter(parent)) {
    const lowWider = parent.low !== undefined && (child.low === undefined || child.low < parent.low);
    const highWider = parent.high !== undefined && (child.high === undefined || child.high > parent.high);
    if (lowWider) add(tokens.rangeExpands, 'low');
    if (highWider) add(tokens.rangeExpands, 'high');
  }

  // what may be chosen
  if (bounds.choices !== undefined) {
    const childChoices = child.choiceList ?? bounds.choices;
    if (childChoices.some((choice) => !bounds.choices!.includes(choice))) add(broadensToken[source], 'choiceList');
    const initial = parent.required ? carriedValues(parent).filter((v): v is string => typeof v === 'string') : [];
    if (initial.some((choice) => !childChoices.includes(choice))) add(tokens.initialChoices, 'choiceList');
  }
  if (!allowedAdjustChanges[parent.adjust].includes(child.adjust)) add(broadensToken[source], 'adjust');
  if (parent.required && !child.required) add(broadensToken[source], 'required');
  if (parent.exclusive && !child.exclusive) add(broadensToken[source], 'exclusive');

  // the values carried
  if ((parent.required || child.required) && values.length === 0) add(tokens.valueRequired, 'valueList');
  if ((parent.exclusive || child.exclusive) && values.length > 1) add(tokens.exclusive, 'valueList');
  values.forEach((value, index) => {
    const field = child.valueList && child.valueList.length > 0 ? `valueList[${index}]` : 'resetValue';
    if (!valueFits(parent.type, value)) return add(tokens.valueFormat, field);
    if (bounds.lockedValue !== undefined && value !== bounds.lockedValue) {
      return add('parameterValueNotEqualToPreexistingParameterValue', field);
    }
    if (typeof value === 'number') {
      if ((bounds.low !== undefined && value < bounds.low) || (bounds.high !== undefined && value > bounds.high)) {
        add(tokens.valueOutOfRange, field);
      }
    }
    if (typeof value === 'string' && bounds.choices !== undefined && !bounds.choices.includes(value))
      add(tokens.notInChoiceList, field);
  });
  return problems;
}

/**
 * The value rules alone: `values` given for the parameter `bound` (well formed for its type,
 * inside its range, from its choice list, one when exclusive, present when required, equal to a
 * locked value). Quality inspections and trace parameter values are checked with it. The bound's
 * own carried values are not defaults here: no value given is no value.
 */
export function valueProblems(
  bound: TDeviceParameter,
  values: TDeviceParameterValue[],
  context: NarrowingContext,
): NarrowingProblem[] {
  const { resetValue: _carried, ...rest } = bound;
  return narrowingProblems(bound, { ...rest, valueList: values }, 'order', context);
}

/**
 * Checks a whole narrowing parameter set against the bounds set by the order and/or the device:
 * each child parameter against the parent of the same `parameterId` in each bound set. A parent
 * the child set does not mention is inherited unchanged; a required one must then carry a value
 * itself (else `authorizationMissingRequiredDeviceParameters` in the authorize call).
 */
export function parameterSetProblems(
  bounds: { source: BoundSource; parameters: TDeviceParameter[] }[],
  children: TDeviceParameter[],
  context: NarrowingContext,
): NarrowingProblem[] {
  const problems: NarrowingProblem[] = [];
  const byId = new Map(children.map((child) => [child.parameterId, child]));
  for (const { source, parameters } of bounds) {
    for (const parent of parameters) {
      const child = byId.get(parent.parameterId);
      if (child) {
        problems.push(...narrowingProblems(parent, child, source, context));
      } else if (parent.required && carriedValues(parent).length === 0) {
        problems.push({
          token: context === 'authorize' ? 'authorizationMissingRequiredDeviceParameters' : ruleTokens.policy.valueRequired,
          parameterId: parent.parameterId,
          field: 'valueList',
        });
      }
    }
  }
  return problems;
}
