import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDeviceId, ZRegistrationId } from './identifiers.js';
import { ZDeviceParameter } from './device-template.js';
import { ZRegistrationState } from './enums.js';
import { ZImageName } from './packages.js';

/**
 * Machines (spec §3 Device registration; §7 device/*, /apl/registration/add).
 */

export type TRegistrationState = z.infer<typeof ZRegistrationState>;

/** Who the machine says it is (spec §3 deviceIdentity). */
export const ZDeviceIdentity = z
  .object({
    /** The machine's own id; one registration per id. */
    id: z.string().trim().min(1).max(128),
    name: z.string().trim().min(1).max(256),
    serialNumber: z.string().trim().min(1).max(128),
    model: z.string().trim().min(1).max(256),
    family: z.string().max(256).optional(),
    manufacturer: z.string().trim().min(1).max(256),
    /**
     * Optional picture of the machine as a data URL (`data:image/png;base64,…`, jpeg or webp, at
     * most 256 KiB). The server stores it; the registration then names it (see device/image).
     */
    image: z.string().max(400_000).optional(),
    deviceClass: z.string().max(256).optional(),
    technology: z.string().max(256).optional(),
  })
  .strict()
  .meta({ id: 'DeviceIdentity' });
export type TDeviceIdentity = z.infer<typeof ZDeviceIdentity>;

/** What an Enforce machine sends to register (`apl` of `/apl/registration/add` with `aplType: enforce`). */
export const ZEnforceApl = z
  .object({
    deviceIdentity: ZDeviceIdentity,
    parameterVersion: z.string().max(64).optional(),
    parameters: z.array(ZDeviceParameter).max(2000).default([]),
    /** PEM: the machine's signing certificate first, then any intermediates. */
    signingCertificate: z.string().min(1).max(64_000),
    /** PEM: the machine's encryption certificate first, then any intermediates. */
    encryptionCertificate: z.string().min(1).max(64_000),
    /**
     * When the machine signed this record (ISO 8601; spec §3 Device registration `dateCreated`).
     * Over the network (`/apl/registration/add`) it must be within five minutes of the server's
     * clock; an APL file an administrator uploads may be older or carry none.
     */
    dateCreated: z.string().max(64).optional(),
  })
  .strict()
  .meta({ id: 'EnforceApl' });
export type TEnforceApl = z.infer<typeof ZEnforceApl>;

export const aplTypes = ['protect', 'enforce', 'upstreamManage', 'downstreamManage', 'trace', 'sipc'] as const;

/**
 * `POST /apl/registration/add`. `apl` is checked against the schema of its `aplType` (only
 * `enforce` is served so far). `signature` proves possession of the signing key: a detached JWS
 * (RS256 or ES256) over the canonical JSON of `apl` (keys sorted, no whitespace), made with the
 * key of `apl.signingCertificate`.
 */
export const ZAplRegistrationRequest = z
  .object({
    aplType: z.string().max(32),
    aplResponse: z.unknown().optional(),
    apl: z.unknown(),
    signature: z.string().max(4096).optional(),
  })
  .meta({ id: 'AplRegistrationRequest' });
export type TAplRegistrationRequest = z.infer<typeof ZAplRegistrationRequest>;

export const ZAplRegistrationResponse = z
  .object({ deviceId: z.string(), registrationState: ZRegistrationState })
  .meta({ id: 'AplRegistrationResponse' });

export const ZDeviceIdentityView = ZDeviceIdentity.omit({ image: true })
  .extend({
    family: z.string().nullable(),
    deviceClass: z.string().nullable(),
    technology: z.string().nullable(),
    /** Image name (see `GET /ui/device/image/{image}`), or null. */
    image: z.string().nullable(),
  })
  .meta({ id: 'DeviceIdentityView' });

export const ZDeviceCertificate = z
  .object({
    subject: z.string(),
    issuer: z.string(),
    keySerialNumber: z.string(),
    fingerprintSha256: z.string(),
    notAfter: z.string(),
    keyUsage: z.array(z.string()),
  })
  .meta({ id: 'DeviceCertificate' });

export const ZDevice = z
  .object({
    deviceId: z.string(),
    registrationState: ZRegistrationState,
    dateCreated: z.string(),
    dateModified: z.string(),
    /** Users allowed to run this machine's jobs; filled by authorizations (issue of orders). */
    authorizedUserList: z.array(z.string()),
    deviceIdentity: ZDeviceIdentityView,
    disabled: z.boolean(),
    version: z.number().int(),
    parameterVersion: z.string().nullable(),
    approved: z.boolean(),
  })
  .meta({ id: 'Device' });
export type TDevice = z.infer<typeof ZDevice>;

export const ZDeviceDetail = ZDevice.extend({
  parameters: z.array(ZDeviceParameter),
  signingCertificate: ZDeviceCertificate,
  encryptionCertificate: ZDeviceCertificate,
}).meta({ id: 'DeviceDetail' });
export type TDeviceDetail = z.infer<typeof ZDeviceDetail>;

export const ZDeviceListQuery = z.object({
  ...ZPageQuery.shape,
  /** true: Approved only; false: every other state. */
  approved: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  /** Matches the machine's name, deviceId or serial number, case-insensitively. */
  search: z.string().max(128).optional(),
});

export const ZDeviceIdQuery = z.object({ deviceId: ZDeviceId });

/** Spec §4/§5: `id` and `approve` (the console may send `deviceId`). */
export const ZDeviceApproveRequest = z
  .object({ id: ZRegistrationId.optional(), deviceId: ZDeviceId.optional(), approve: z.boolean() })
  .meta({ id: 'DeviceApproveRequest' });

/** `disabled` defaults to true; `disabled: false` enables the machine again. */
export const ZDeviceDisableRequest = z
  .object({ deviceId: ZDeviceId, disabled: z.boolean().default(true) })
  .meta({ id: 'DeviceDisableRequest' });

export const ZDeviceDeleteRequest = z
  .object({ deviceId: ZDeviceId, forceDelete: z.boolean().default(false) })
  .meta({ id: 'DeviceDeleteRequest' });

export const ZDeviceImageParams = z.object({ image: ZImageName });
