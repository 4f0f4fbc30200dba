import { z } from 'zod';
import {
  ZDeviceParameter,
  ZDeviceParameterAdjust,
  ZDeviceParameterText,
  ZDeviceParameterType,
  ZDeviceParameterValue,
} from './device-template.js';

/**
 * The authorized policy list: the licence an order carries (spec §3 Order, §5 "order add",
 * §8 policy tokens). It arrives as `authorizationAuthorizedPolicyList` of `order/add`, as the
 * file of `order/upload`, or signed from a trusted sender at `/apl/order/add`.
 *
 * Checks, in order:
 * 1. the shape below (`authorizedPolicyListNotFormattedCorrectly`, one entry per field);
 * 2. key roles: every `keyRoles[].role` is one of {@link keyRoles}
 *    (`authorizedPolicyListUnknownKeyRole`); exactly one `licensee` whose `keySerialNumber` is
 *    the serial number (hex, any case) of THIS server's signing or encryption certificate
 *    (`authorizedPolicyLicenseeRoleMismatch`: the order was made for another Manage instance);
 * 3. the rules between fields (`authorizedPolicyListInvalid` naming the field, or the parameter
 *    tokens for `deviceParameters` / `qualityParameters`): expiration in the future, serial
 *    range with at least `quantity` numbers, breakage value fitting its policy, …;
 * 4. the design: `design.dsiId` + `design.dsiVersion` must be a revision built here whose
 *    manifest SHA-256 is `design.digestValue` (`orderNotMappable`);
 * 5. duplicates: `orderNumber` is unique per `sourceCompanyName` (`orderNumberDuplicate`)
 *    unless `revokes` names that earlier order, which is then revoked (with its authorizations)
 *    and replaced.
 */

/**
 * Key roles: whose key a serial number in `keyRoles` names.
 * - `licensor`: the design owner (Protect) that grants the licence — the order's `keyRoleSN`;
 * - `issuer`: the party that issued and signed this order (an upstream Manage or Protect) —
 *   the order's `publicKeySN`;
 * - `licensee`: the Manage instance the order is for: this server — the order's `licenseeKeySN`.
 */
export const keyRoles = ['licensor', 'issuer', 'licensee'] as const;
export type TKeyRole = (typeof keyRoles)[number];

export const breakagePolicies = ['Strict', 'Percentage', 'Quantity', 'Trusted'] as const;
export const ZBreakagePolicy = z.enum(breakagePolicies);

export const serializationTypes = ['Dec', 'Hex'] as const;
export const ZSerializationType = z.enum(serializationTypes);

const text = (max: number) => z.string().trim().min(1).max(max);

/** A quality parameter (spec §3 Authorize request): checked on the part, narrowed like device parameters. */
export const ZQualityParameter = z
  .object({
    id: text(128),
    type: ZDeviceParameterType,
    action: z.string().max(1024).optional(),
    units: z.string().max(64).optional(),
    prompt: z.array(ZDeviceParameterText).max(32).optional(),
    description: z.array(ZDeviceParameterText).max(32).optional(),
    error: z.array(ZDeviceParameterText).max(32).optional(),
    priority: z.number().int().min(0).max(1_000_000).optional(),
    encrypt: z.boolean().default(false),
    required: z.boolean().default(false),
    adjust: ZDeviceParameterAdjust.default('FREE'),
    /** Lower bound (integer and decimal). */
    low: z.number().optional(),
    /** Upper bound (integer and decimal). */
    high: z.number().optional(),
    choiceList: z.array(z.string().min(1).max(1024)).max(1000).optional(),
    valueList: z.array(ZDeviceParameterValue).max(1000).optional(),
    resetValue: ZDeviceParameterValue.optional(),
    interface: z.string().max(128).optional(),
  })
  .strict()
  .meta({ id: 'QualityParameter' });
export type TQualityParameter = z.infer<typeof ZQualityParameter>;

/** Machine identity constraints: every field given must equal the machine's (trimmed, any case). */
export const ZDeviceIdentityConstraint = z
  .object({
    /** The machine's own id (`deviceIdentity.id` of its registration). */
    id: z.string().max(128).optional(),
    name: z.string().max(256).optional(),
    serialNumber: z.string().max(128).optional(),
    model: z.string().max(256).optional(),
    family: z.string().max(256).optional(),
    manufacturer: z.string().max(256).optional(),
    deviceClass: z.string().max(256).optional(),
    technology: z.string().max(256).optional(),
  })
  .strict()
  .meta({ id: 'DeviceIdentityConstraint' });
export type TDeviceIdentityConstraint = z.infer<typeof ZDeviceIdentityConstraint>;

export const ZKeyRoleEntry = z
  .object({
    /** One of {@link keyRoles}; anything else is `authorizedPolicyListUnknownKeyRole`. */
    role: z.string().max(64),
    /** Certificate serial number, hex. */
    keySerialNumber: z.string().regex(/^[0-9A-Fa-f:]{1,128}$/, 'a hexadecimal certificate serial number'),
    companyName: z.string().max(256).optional(),
  })
  .strict()
  .meta({ id: 'KeyRoleEntry' });

export const ZAuthorizedPolicyList = z
  .object({
    policyVersion: z.literal(1),
    /** The issuer's number for this order; unique per `sourceCompanyName`. */
    orderNumber: text(128),
    /** The upstream authorization this order was cut from, when it came from an upstream Manage. */
    authorizationId: z.string().max(64).optional(),
    /** Who issued the order (the licensor's company). */
    companyName: text(256),
    /** Where the order originally came from, and when it was made there. */
    sourceCompanyName: text(256),
    sourceDateCreated: z.iso.datetime({ offset: true }).optional(),
    design: z
      .object({
        dsiId: z.uuid(),
        dsiVersion: z.number().int().min(1),
        digestMethod: z.literal('SHA-256'),
        /** SHA-256 (hex) of the revision's manifest (the DAS entry's `digestValue`). */
        digestValue: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters'),
      })
      .strict(),
    keyRoles: z.array(ZKeyRoleEntry).min(1).max(16),
    quantity: z.number().int().min(1).max(1_000_000_000),
    /** When the licence ends (ISO-8601); none: it does not expire. */
    expiration: z.iso.datetime({ offset: true }).optional(),
    purpose: z.string().max(1024).optional(),
    dasUrl: z.url().max(2048).optional(),
    imageUrl: z.url().max(2048).optional(),
    fileInformationBlockElementSize: z.number().int().min(0).max(1_000_000_000).optional(),
    deviceIdentity: ZDeviceIdentityConstraint.optional(),
    /** The machine's parameter set version the order was made for (matched as manufacturing info). */
    parameterVersion: z.string().max(64).optional(),
    deviceParameters: z.array(ZDeviceParameter).max(2000).default([]),
    qualityParameters: z.array(ZQualityParameter).max(2000).default([]),
    breakage: z
      .object({
        policy: ZBreakagePolicy,
        /** Percentage: 0–100 of the quantity; Quantity: a count; Strict and Trusted: none. */
        value: z.number().min(0).optional(),
      })
      .strict()
      .default({ policy: 'Strict' }),
    /** Part serial numbers handed out from [start, end], printed in `type` after `prefix`. */
    serialization: z
      .object({
        type: ZSerializationType,
        prefix: z.string().max(64).default(''),
        start: z.number().int().min(0),
        end: z.number().int().min(0),
      })
      .strict()
      .optional(),
    /** Users of this instance who may run the machines' jobs (usernames); empty: anyone. */
    authorizedUserList: z.array(text(128)).max(1000).default([]),
    /** The order is for a machine of a downstream Manage instance. */
    downstreamDevice: z.boolean().default(false),
    /** This order replaces (and revokes) the earlier order of this orderNumber from the same source. */
    revokes: z
      .object({ orderNumber: text(128) })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'AuthorizedPolicyList',
    title: 'Manifold authorized policy list',
    description:
      'The licence an order carries. Beyond the shape: keyRoles[].role is licensor, issuer or licensee; exactly one ' +
      'licensee whose keySerialNumber is this server\u2019s signing or encryption certificate serial; expiration in the ' +
      'future; serialization end >= start and at least quantity numbers; breakage value 0-100 for Percentage, an ' +
      'integer up to quantity for Quantity, none for Strict and Trusted; device and quality parameters well formed; ' +
      'design names a revision built on this server with that manifest digest; orderNumber unique per ' +
      'sourceCompanyName unless revokes names it.',
  });
export type TAuthorizedPolicyList = z.infer<typeof ZAuthorizedPolicyList>;
export type TAuthorizedPolicyListInput = z.input<typeof ZAuthorizedPolicyList>;

/**
 * A policy list for a built design revision (as `/ui/package/build` answers it), issued by
 * `companyName` (also its source) with the licensee's and the licensor's key serial numbers; the
 * rest as `terms` say.
 */
export function revisionPolicyList(
  revision: { dsiId: string; dsiVersion: number; digestValue: string },
  keys: { licensee: string; licensor: string },
  companyName: string,
  terms: Omit<TAuthorizedPolicyListInput, 'policyVersion' | 'companyName' | 'sourceCompanyName' | 'design' | 'keyRoles'>,
): TAuthorizedPolicyListInput {
  return {
    policyVersion: 1,
    companyName,
    sourceCompanyName: companyName,
    design: {
      dsiId: revision.dsiId,
      dsiVersion: revision.dsiVersion,
      digestMethod: 'SHA-256',
      digestValue: revision.digestValue,
    },
    keyRoles: [
      { role: 'licensee', keySerialNumber: keys.licensee },
      { role: 'licensor', keySerialNumber: keys.licensor },
    ],
    ...terms,
  };
}

/** The JSON Schema of the policy list (`GET /ui/order/policy-schema`, docs/policy.schema.json). */
export function policyJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ZAuthorizedPolicyList, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
