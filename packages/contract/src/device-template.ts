import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDeviceTemplateId, ZDsiId } from './identifiers.js';

/**
 * Device parameters (spec §3) and device templates: a template is the set of parameters a
 * machine model exposes (build-plate temperature, layer height, material…), imported as JSON,
 * attached to design packages and applied by `device` workflow steps. A machine registering
 * through `/apl/registration/add` sends its parameters in the same format.
 *
 * The zod schema below checks the shape (types, lengths, enum values); {@link deviceParameterProblems}
 * checks the rules between fields. Both report the path of the offending field.
 */

/**
 * Value types of a parameter:
 * - `integer`: whole numbers; `low`, `high`, values are JSON integers.
 * - `decimal`: numbers; `low`, `high`, values are JSON numbers.
 * - `string`: free text; `low`/`high` are not used.
 * - `boolean`: true or false; `low`/`high` are not used.
 * - `choice`: one of `choiceList` (strings); `choicePresent` must be true.
 */
export const deviceParameterTypes = ['integer', 'decimal', 'string', 'boolean', 'choice'] as const;
export const ZDeviceParameterType = z.enum(deviceParameterTypes);
export type TDeviceParameterType = z.infer<typeof ZDeviceParameterType>;

/**
 * How a licence further down the chain may change the value (DOMAIN.md, parameters):
 * - `LOCK`: the value is fixed; the parameter must carry it (`resetValue` or one `valueList` entry).
 * - `INCREASE` / `DECREASE`: numeric only, starting from the value it carries, moved only that way.
 * - `FREE`: any value inside the range (and the choice list).
 */
export const deviceParameterAdjusts = ['INCREASE', 'DECREASE', 'FREE', 'LOCK'] as const;
export const ZDeviceParameterAdjust = z.enum(deviceParameterAdjusts);
export type TDeviceParameterAdjust = z.infer<typeof ZDeviceParameterAdjust>;

/** A value of a parameter: its JSON type must fit the parameter's `type`. */
export const ZDeviceParameterValue = z.union([z.number(), z.string().max(1024), z.boolean()]);
export type TDeviceParameterValue = z.infer<typeof ZDeviceParameterValue>;

/**
 * Prompt, description or error text of a parameter in one language. `text` is what a person
 * reads; `data` optionally carries a base64 attachment (an icon, a diagram) whose decoded length
 * is `size`.
 */
export const ZDeviceParameterText = z
  .object({
    id: z.string().max(128).optional(),
    language: z.string().regex(/^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, 'a language tag such as en_US or zh-CN'),
    data: z
      .string()
      .max(1_000_000)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64')
      .optional(),
    size: z.number().int().min(0).optional(),
    text: z.string().max(4000),
  })
  .strict()
  .meta({ id: 'DeviceParameterText' });
export type TDeviceParameterText = z.infer<typeof ZDeviceParameterText>;

/** One choice with its labels per language. */
export const ZDeviceParameterChoiceEntry = z
  .object({
    value: z.string().min(1).max(1024),
    text: z.array(ZDeviceParameterText).max(32).optional(),
  })
  .strict()
  .meta({ id: 'DeviceParameterChoiceEntry' });

const identifier = z.string().min(1).max(128);

export const ZDeviceParameter = z
  .object({
    /** Unique within a template or a machine's parameter set. */
    parameterId: identifier,
    groupId: identifier.optional(),
    authId: identifier.optional(),
    /** The workflow step the parameter belongs to, counted from 1. */
    step: z.number().int().min(1).max(10_000).optional(),
    /** The machine's own numeric id of the parameter. */
    ID: z.number().int().min(0).optional(),
    priority: z.number().int().min(0).max(1_000_000).optional(),
    type: ZDeviceParameterType,
    actionValue: z.string().max(1024).optional(),
    actionForce: z.boolean().optional(),
    actionMatch: z.boolean().optional(),
    actionDisposition: z.string().max(128).optional(),
    /** Where the machine takes the value from, e.g. `ui`, `api`, `firmware`. */
    interface: z.string().max(128).optional(),
    units: z.string().max(64).optional(),
    adjust: ZDeviceParameterAdjust.default('FREE'),
    encrypt: z.boolean().default(false),
    /** Lower bound (integer and decimal types). */
    low: z.number().optional(),
    /** Upper bound (integer and decimal types). */
    high: z.number().optional(),
    resetValue: ZDeviceParameterValue.optional(),
    choicePresent: z.boolean().default(false),
    /** Only one value may be chosen. */
    exclusive: z.boolean().default(false),
    /** A value must be given when the parameter is applied. */
    required: z.boolean().default(false),
    prompt: z.array(ZDeviceParameterText).max(32).optional(),
    description: z.array(ZDeviceParameterText).max(32).optional(),
    error: z.array(ZDeviceParameterText).max(32).optional(),
    /** Labelled choices; their values must be exactly `choiceList`. */
    choiceListEntryList: z.array(ZDeviceParameterChoiceEntry).max(1000).optional(),
    /** The values a `choice` parameter may take. */
    choiceList: z.array(z.string().min(1).max(1024)).max(1000).optional(),
    /** The value(s) the parameter carries; every one inside the range and the choice list. */
    valueList: z.array(ZDeviceParameterValue).max(1000).optional(),
  })
  .strict()
  .meta({ id: 'DeviceParameter' });
export type TDeviceParameter = z.infer<typeof ZDeviceParameter>;
export type TDeviceParameterInput = z.input<typeof ZDeviceParameter>;

/** The machine identity a template is meant for; every field optional (a template may fit a family). */
export const ZDeviceTemplateTarget = z
  .object({
    manufacturer: z.string().max(256).optional(),
    model: z.string().max(256).optional(),
    family: z.string().max(256).optional(),
    deviceClass: z.string().max(256).optional(),
    technology: z.string().max(256).optional(),
  })
  .strict()
  .meta({ id: 'DeviceTemplateTarget' });

/** The file `package/device-template/import` takes (JSON). */
export const ZDeviceTemplateDocument = z
  .object({
    name: z.string().trim().min(1).max(256),
    description: z.string().max(4000).optional(),
    target: ZDeviceTemplateTarget.optional(),
    parameterVersion: z.string().max(64).optional(),
    parameters: z.array(ZDeviceParameter).min(1).max(2000),
  })
  .strict()
  .meta({
    id: 'DeviceTemplateDocument',
    title: 'Manifold device template',
    description:
      'A set of device parameters for a machine model. Rules beyond the shape: parameterId unique; low <= high; ' +
      'low/high only for integer and decimal; every value (resetValue, valueList, choiceList) of the parameter type, ' +
      'inside [low, high] and, when a choice list is present, in it; type choice needs choicePresent and a choiceList; ' +
      'choicePresent needs a choiceList; choiceListEntryList values equal choiceList; exclusive allows one value; ' +
      'LOCK carries exactly one value; INCREASE/DECREASE are numeric and carry a starting value; a text entry with data ' +
      'has size equal to the decoded length.',
  });
export type TDeviceTemplateDocument = z.infer<typeof ZDeviceTemplateDocument>;

/**
 * Tokens of the cross-field rules. The value rules use the spec's tokens (§8, parameters and
 * values); the structural ones are Manifold's (see `manifoldErrorTokens`).
 */
export type DeviceParameterProblemToken =
  | 'parameterIdDuplicate'
  | 'parameterRangeInvalid'
  | 'parameterRangeNotAllowed'
  | 'parameterChoiceListMissing'
  | 'parameterChoiceListMismatch'
  | 'parameterAdjustInvalid'
  | 'parameterTextSizeMismatch'
  | 'invalidValueFormat'
  | 'valueOutOfRange'
  | 'valueNotFoundInChoiceList'
  | 'valueExclusiveAllowsOnlyOneValue';

export interface DeviceParameterProblem {
  token: DeviceParameterProblemToken;
  /** e.g. `parameters[2].valueList[1]`. */
  path: string;
}

/** Whether a value is well formed for a parameter type (JSON type, whole number for integers). */
export function valueFits(type: TDeviceParameterType, value: TDeviceParameterValue): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'decimal':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
    case 'choice':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/** Decoded length of well-formed base64 (the shape check guarantees the alphabet). */
function base64Length(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** The cross-field rules of one parameter list (the shape is already checked by zod). */
export function deviceParameterProblems(parameters: TDeviceParameter[], basePath = 'parameters'): DeviceParameterProblem[] {
  const problems: DeviceParameterProblem[] = [];
  const seen = new Set<string>();
  parameters.forEach((parameter, index) => {
    const at = (field: string) => `${basePath}[${index}]${field ? `.${field}` : ''}`;
    const add = (token: DeviceParameterProblemToken, field: string) => problems.push({ token, path: at(field) });
    const numeric = parameter.type === 'integer' || parameter.type === 'decimal';

    if (seen.has(parameter.parameterId)) add('parameterIdDuplicate', 'parameterId');
    seen.add(parameter.parameterId);

    if (!numeric && (parameter.low !== undefined || parameter.high !== undefined)) {
      add('parameterRangeNotAllowed', parameter.low !== undefined ? 'low' : 'high');
    }
    if (numeric) {
      if (parameter.low !== undefined && !valueFits(parameter.type, parameter.low)) add('invalidValueFormat', 'low');
      if (parameter.high !== undefined && !valueFits(parameter.type, parameter.high)) add('invalidValueFormat', 'high');
      if (parameter.low !== undefined && parameter.high !== undefined && parameter.low > parameter.high)
        add('parameterRangeInvalid', 'low');
    }

    const choices = parameter.choiceList;
    if (parameter.type === 'choice' && (!parameter.choicePresent || !choices || choices.length === 0)) {
      add('parameterChoiceListMissing', 'choiceList');
    } else if (parameter.choicePresent && (!choices || choices.length === 0)) {
      add('parameterChoiceListMissing', 'choiceList');
    } else if (!parameter.choicePresent && choices !== undefined) {
      add('parameterChoiceListMismatch', 'choicePresent');
    }
    if (choices) {
      choices.forEach((choice, i) => {
        if (parameter.type !== 'choice' && parameter.type !== 'string') add('invalidValueFormat', `choiceList[${i}]`);
      });
      if (new Set(choices).size !== choices.length) add('parameterChoiceListMismatch', 'choiceList');
    }
    if (parameter.choiceListEntryList) {
      const entryValues = parameter.choiceListEntryList.map((entry) => entry.value);
      const sameSet =
        choices !== undefined && entryValues.length === choices.length && entryValues.every((value) => choices.includes(value));
      if (!sameSet) add('parameterChoiceListMismatch', 'choiceListEntryList');
    }

    const checkValue = (value: TDeviceParameterValue, field: string) => {
      if (!valueFits(parameter.type, value)) return add('invalidValueFormat', field);
      if (numeric && typeof value === 'number') {
        if ((parameter.low !== undefined && value < parameter.low) || (parameter.high !== undefined && value > parameter.high)) {
          add('valueOutOfRange', field);
        }
      }
      if (choices && choices.length > 0 && typeof value === 'string' && !choices.includes(value))
        add('valueNotFoundInChoiceList', field);
    };
    if (parameter.resetValue !== undefined) checkValue(parameter.resetValue, 'resetValue');
    parameter.valueList?.forEach((value, i) => checkValue(value, `valueList[${i}]`));
    if (parameter.exclusive && (parameter.valueList?.length ?? 0) > 1) add('valueExclusiveAllowsOnlyOneValue', 'valueList');

    const carried = parameter.valueList?.length ?? 0;
    if (parameter.adjust === 'LOCK' && !(carried === 1 || (carried === 0 && parameter.resetValue !== undefined))) {
      add('parameterAdjustInvalid', 'adjust');
    }
    if (
      (parameter.adjust === 'INCREASE' || parameter.adjust === 'DECREASE') &&
      (!numeric || (carried === 0 && parameter.resetValue === undefined))
    ) {
      add('parameterAdjustInvalid', 'adjust');
    }

    for (const kind of ['prompt', 'description', 'error'] as const) {
      parameter[kind]?.forEach((text, i) => {
        if (text.data !== undefined && text.size !== undefined && base64Length(text.data) !== text.size) {
          add('parameterTextSizeMismatch', `${kind}[${i}].size`);
        }
      });
    }
  });
  return problems;
}

/** A template as the server lists it. */
export const ZDeviceTemplate = z
  .object({
    deviceTemplateId: z.string(),
    /** The package it is attached to, or null for a template of the library. */
    dsiId: z.string().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    target: ZDeviceTemplateTarget.nullable(),
    parameterVersion: z.string().nullable(),
    parameterCount: z.number().int(),
    /** SHA-256 (hex) of the template's canonical JSON. */
    sha256: z.string(),
    dateCreated: z.string(),
    createdBy: z.string().nullable(),
  })
  .meta({ id: 'DeviceTemplate' });
export type TDeviceTemplate = z.infer<typeof ZDeviceTemplate>;

export const ZDeviceTemplateDetail = ZDeviceTemplate.extend({ parameters: z.array(ZDeviceParameter) }).meta({
  id: 'DeviceTemplateDetail',
});
export type TDeviceTemplateDetail = z.infer<typeof ZDeviceTemplateDetail>;

export const ZDeviceTemplateListQuery = z.object({
  ...ZPageQuery.shape,
  /** Only the templates attached to this package. */
  dsiId: ZDsiId.optional(),
  /** Case-insensitive part of the name. */
  name: z.string().max(256).optional(),
});

export const ZDeviceTemplateDeleteRequest = z
  .object({ deviceTemplateId: ZDeviceTemplateId })
  .meta({ id: 'DeviceTemplateDeleteRequest' });

/** The JSON Schema of the import file, generated from {@link ZDeviceTemplateDocument}. */
export function deviceTemplateJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ZDeviceTemplateDocument, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
