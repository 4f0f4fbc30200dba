import { z } from 'zod';
import type { ErrorToken } from './errors.js';

/**
 * Identifier fields and the token a malformed value of each answers (spec §8): a request whose
 * only faults are malformed identifiers answers that token with the field (420; 418 when
 * several) instead of 400 `malformedRequest`, exactly as an identifier that names nothing does.
 */
export const identifierTokens = z.registry<{ token: ErrorToken }>();

/** A UUID identifier; malformed (or missing when required), it answers `token`. */
export function ZId(token: ErrorToken) {
  return z.uuid().register(identifierTokens, { token });
}

/** The ids of the spec's calls, each with its token. */
export const ZOrderId = ZId('orderIdNotValid');
export const ZDeviceId = ZId('deviceIdNotValid');
/** A registration (`device/approve`'s `id`). */
export const ZRegistrationId = ZId('registrationNotPresent');
/** An authorization of the order named alongside it. */
export const ZAuthorizationId = ZId('invalidOrderAndAuthorizationIdCombination');
export const ZDsiId = ZId('packageNotPresent');
export const ZWorkflowStepId = ZId('workflowStepNotPresent');
export const ZFileId = ZId('packageFileNotPresent');
export const ZDeviceTemplateId = ZId('deviceTemplateNotPresent');

interface Walkable {
  _zod: {
    def: {
      type: string;
      innerType?: Walkable;
      in?: Walkable;
      shape?: Record<string, Walkable>;
      element?: Walkable;
    };
  };
}

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/**
 * The identifier token of the field at `path` inside `schema` (through objects, arrays and
 * optional/nullable/default wrappers), with the field written as `a[0].b`; undefined when the
 * field is not an identifier. Path segments may be strings (`'0'`) where the value is an array.
 */
export function identifierAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  base = '',
): { token: ErrorToken; field: string } | undefined {
  let current = schema as unknown as Walkable | undefined;
  let field = base;
  const unwrap = () => {
    while (current && !identifierTokens.has(current as unknown as z.ZodType)) {
      const def: Walkable['_zod']['def'] = current._zod.def;
      if (wrappers.has(def.type)) current = def.innerType;
      else if (def.type === 'pipe') current = def.in;
      else break;
    }
  };
  for (const segment of path) {
    unwrap();
    const def = current?._zod.def;
    if (def?.type === 'object') {
      current = def.shape?.[String(segment)];
      field += field ? `.${String(segment)}` : String(segment);
    } else if (def?.type === 'array' && /^\d+$/.test(String(segment))) {
      current = def.element;
      field += `[${String(segment)}]`;
    } else {
      return undefined;
    }
  }
  unwrap();
  const meta = current && identifierTokens.get(current as unknown as z.ZodType);
  return meta ? { token: meta.token, field } : undefined;
}
