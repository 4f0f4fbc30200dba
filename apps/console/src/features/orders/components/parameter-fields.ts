import {
  boundsOf,
  type ParameterBounds,
  type TDeviceParameter,
  type TDeviceParameterAdjust,
  type TDeviceParameterText,
  type TDeviceParameterType,
  type TDeviceParameterValue,
  type TQualityParameter,
} from '@manifold/contract';

/**
 * What the authorize form's parameter editor offers for one parameter: the bounds every parent
 * (the order, the machine) puts on it, combined, and how to build the narrowing parameter the
 * authorization sends for a chosen value.
 */
export interface ParameterField {
  /** `deviceParameters.<parameterId>` or `qualityParameters.<id>`: also the key of its server errors. */
  key: string;
  id: string;
  type: TDeviceParameterType;
  units: string | undefined;
  prompt: TDeviceParameterText[] | undefined;
  required: boolean;
  /** Who set the bounds. */
  sources: ('order' | 'device')[];
  bounds: ParameterBounds;
}

const intersect = (a: string[] | undefined, b: string[] | undefined) =>
  a === undefined ? b : b === undefined ? a : a.filter((choice) => b.includes(choice));

/** The bounds of several parents at once: the tightest range, the common choices, a locked value. */
export function combineBounds(all: readonly ParameterBounds[]): ParameterBounds {
  return all.reduce<ParameterBounds>(
    (combined, bounds) => ({
      low: combined.low === undefined ? bounds.low : bounds.low === undefined ? combined.low : Math.max(combined.low, bounds.low),
      high:
        combined.high === undefined
          ? bounds.high
          : bounds.high === undefined
            ? combined.high
            : Math.min(combined.high, bounds.high),
      choices: intersect(combined.choices, bounds.choices),
      lockedValue: combined.lockedValue ?? bounds.lockedValue,
    }),
    { low: undefined, high: undefined, choices: undefined, lockedValue: undefined },
  );
}

/** The tightest adjust mode every parent allows a child to keep (LOCK when they pull apart). */
function childAdjust(adjusts: readonly TDeviceParameterAdjust[]): TDeviceParameterAdjust {
  if (adjusts.includes('LOCK')) return 'LOCK';
  const increase = adjusts.includes('INCREASE');
  const decrease = adjusts.includes('DECREASE');
  if (increase && decrease) return 'LOCK';
  if (increase) return 'INCREASE';
  if (decrease) return 'DECREASE';
  return 'FREE';
}

function isNumeric(type: TDeviceParameterType): boolean {
  return type === 'integer' || type === 'decimal';
}

/** A quality parameter read as a device parameter, so the same bounds apply (as on the server). */
export function qualityAsDeviceParameter(quality: TQualityParameter): TDeviceParameter {
  return {
    parameterId: quality.id,
    type: quality.type,
    adjust: quality.adjust,
    encrypt: quality.encrypt,
    required: quality.required,
    exclusive: false,
    choicePresent: quality.choiceList !== undefined,
    ...(quality.low !== undefined ? { low: quality.low } : {}),
    ...(quality.high !== undefined ? { high: quality.high } : {}),
    ...(quality.choiceList !== undefined ? { choiceList: quality.choiceList } : {}),
    ...(quality.valueList !== undefined ? { valueList: quality.valueList } : {}),
    ...(quality.resetValue !== undefined ? { resetValue: quality.resetValue } : {}),
  };
}

/** The device parameters of the order and of the chosen machine, each with its combined bounds. */
export function deviceParameterFields(
  orderParameters: readonly TDeviceParameter[],
  deviceParameters: readonly TDeviceParameter[],
): ParameterField[] {
  const ids = [...new Set([...orderParameters, ...deviceParameters].map((parameter) => parameter.parameterId))];
  return ids.map((id) => {
    const fromOrder = orderParameters.find((parameter) => parameter.parameterId === id);
    const fromDevice = deviceParameters.find((parameter) => parameter.parameterId === id);
    const parents = [fromOrder, fromDevice].filter((parent): parent is TDeviceParameter => parent !== undefined);
    const base = parents[0]!;
    return {
      key: `deviceParameters.${id}`,
      id,
      type: base.type,
      units: base.units,
      prompt: base.prompt,
      required: parents.some((parent) => parent.required),
      sources: [...(fromOrder ? (['order'] as const) : []), ...(fromDevice ? (['device'] as const) : [])],
      bounds: combineBounds(parents.map(boundsOf)),
    };
  });
}

export function qualityParameterFields(orderQuality: readonly TQualityParameter[]): ParameterField[] {
  return orderQuality.map((quality) => ({
    key: `qualityParameters.${quality.id}`,
    id: quality.id,
    type: quality.type,
    units: quality.units,
    prompt: quality.prompt,
    required: quality.required,
    sources: ['order'],
    bounds: boundsOf(qualityAsDeviceParameter(quality)),
  }));
}

/** Whether a value is one the editor may offer: inside the range, among the choices, the locked one. */
export function valueAllowed(field: ParameterField, value: TDeviceParameterValue): boolean {
  const { low, high, choices, lockedValue } = field.bounds;
  if (lockedValue !== undefined) return value === lockedValue;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return false;
    if ((low !== undefined && value < low) || (high !== undefined && value > high)) return false;
  }
  if (typeof value === 'string' && choices !== undefined) return choices.includes(value);
  return true;
}

/** The narrowing device parameter an authorization sends for a value chosen under its parents. */
export function narrowedDeviceParameter(
  field: ParameterField,
  parents: readonly TDeviceParameter[],
  value: TDeviceParameterValue,
): TDeviceParameter {
  const base = parents[0]!;
  const { valueList: _values, resetValue: _reset, low: _low, high: _high, choiceList: _choices, ...kept } = base;
  const { low, high, choices } = field.bounds;
  return {
    ...kept,
    adjust: childAdjust(parents.map((parent) => parent.adjust)),
    required: parents.some((parent) => parent.required),
    exclusive: parents.some((parent) => parent.exclusive),
    encrypt: parents.some((parent) => parent.encrypt),
    ...(isNumeric(base.type) && low !== undefined ? { low } : {}),
    ...(isNumeric(base.type) && high !== undefined ? { high } : {}),
    choicePresent: choices !== undefined,
    ...(choices !== undefined ? { choiceList: choices } : {}),
    ...(base.choiceListEntryList && choices !== undefined
      ? { choiceListEntryList: base.choiceListEntryList.filter((entry) => choices.includes(entry.value)) }
      : {}),
    valueList: [value],
  };
}

/** The narrowing quality parameter for a value chosen under the order's. */
export function narrowedQualityParameter(
  field: ParameterField,
  parent: TQualityParameter,
  value: TDeviceParameterValue,
): TQualityParameter {
  const { valueList: _values, resetValue: _reset, low: _low, high: _high, choiceList: _choices, ...kept } = parent;
  const { low, high, choices } = field.bounds;
  return {
    ...kept,
    adjust: childAdjust([parent.adjust]),
    ...(isNumeric(parent.type) && low !== undefined ? { low } : {}),
    ...(isNumeric(parent.type) && high !== undefined ? { high } : {}),
    ...(choices !== undefined ? { choiceList: choices } : {}),
    valueList: [value],
  };
}

/** The text of a prompt in the reader's language (else English, else the first one). */
export function promptText(prompt: TDeviceParameterText[] | undefined, language: string): string | undefined {
  if (!prompt || prompt.length === 0) return undefined;
  const base = language.toLowerCase().slice(0, 2);
  const match =
    prompt.find((entry) => entry.language.toLowerCase().startsWith(base)) ??
    prompt.find((entry) => entry.language.toLowerCase().startsWith('en'));
  return (match ?? prompt[0])?.text;
}
