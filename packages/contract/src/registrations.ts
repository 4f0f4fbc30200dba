import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZRegistrationState } from './enums.js';
import { ZRegistrationId } from './identifiers.js';

/** Spec §3 Manage instance types, as this instance sees the peer. */
export const manageTypes = ['upStreamManage', 'downStreamManage'] as const;
export const ZManageType = z.enum(manageTypes);
export type TManageType = z.infer<typeof ZManageType>;

/** `POST /ui/manage/add`: registrationType defaults to downStreamManage (spec §5). */
export const ZManageAddRequest = z
  .object({
    registrationType: ZManageType.nullish().transform((value) => value ?? 'downStreamManage'),
    manageUrl: z.string().max(2048),
  })
  .meta({ id: 'ManageAddRequest' });
export type TManageAddRequest = z.infer<typeof ZManageAddRequest>;

export const ZManageListQuery = ZPageQuery.extend({
  registrationType: z.enum([...manageTypes, 'all']).default('downStreamManage'),
});

export const ZRegistrationApproveRequest = z
  .object({ id: ZRegistrationId, approve: z.boolean() })
  .meta({ id: 'RegistrationApproveRequest' });
export type TRegistrationApproveRequest = z.infer<typeof ZRegistrationApproveRequest>;

export const ZRegistrationDeleteRequest = z.object({ id: ZRegistrationId }).meta({ id: 'RegistrationDeleteRequest' });

/** Spec §3 Crypto cert. */
export const ZCryptoCert = z
  .object({ keyUse: z.string(), companyName: z.string(), keySerialNumber: z.string(), revoked: z.boolean() })
  .meta({ id: 'CryptoCert' });

/** Spec §3 Manage registration entry. */
export const ZManageInstance = z
  .object({
    manageId: z.string(),
    version: z.number().int(),
    dateCreated: z.string(),
    manageSiteName: z.string(),
    manageURL: z.string(),
    manageType: ZManageType,
    registrationNonce: z.string().nullable(),
    upstream: z.boolean(),
    registrationState: ZRegistrationState,
    initiator: z.boolean(),
    cryptoCertsForSigning: z.array(ZCryptoCert),
    cryptoCertsForEncryption: z.array(ZCryptoCert),
  })
  .meta({ id: 'ManageInstance' });
export type TManageInstance = z.infer<typeof ZManageInstance>;

/**
 * The `apl` a Manage instance posts to a peer's `/apl/registration/add` (aplType
 * `upstreamManage` or `downstreamManage`: the sender's place relative to the receiver), signed
 * as a detached JWS over its canonical JSON.
 */
export const ZManageApl = z.object({
  registrationNonce: z.uuid(),
  manageSiteName: z.string().min(1).max(256),
  manageUrl: z.string().min(1).max(2048),
  signingCertificate: z.string().min(1).max(65_536),
  encryptionCertificate: z.string().min(1).max(65_536),
  dateCreated: z.string().max(40),
});
export type TManageApl = z.infer<typeof ZManageApl>;

/** The `apl` of `/apl/registration/update` and `/apl/registration/delete` between registered peers. */
export const ZRegistrationNoticeApl = z.object({
  registrationNonce: z.uuid(),
  registrationState: ZRegistrationState,
  /** When the notice was signed (ISO-8601); notices older than a few minutes are refused. */
  timestamp: z.string().max(40),
  /** Unique per message: a notice received twice is refused as a replay. */
  nonce: z.uuid(),
});
export type TRegistrationNoticeApl = z.infer<typeof ZRegistrationNoticeApl>;

export const ZAplPeerRegistrationResponse = z
  .object({ registrationId: z.string(), registrationState: ZRegistrationState })
  .meta({ id: 'AplPeerRegistrationResponse' });
export type TAplPeerRegistrationResponse = z.infer<typeof ZAplPeerRegistrationResponse>;

/** `POST /ui/trace/add`. */
export const ZTraceAddRequest = z.object({ traceUrl: z.string().max(2048) }).meta({ id: 'TraceAddRequest' });

/** Spec §3 Trace registration (plus `initiator`, as a Manage entry has). */
export const ZTraceInstance = z
  .object({
    id: z.string(),
    version: z.number().int(),
    dateCreated: z.string(),
    traceSiteName: z.string(),
    traceURL: z.string(),
    registrationState: ZRegistrationState,
    initiator: z.boolean(),
    cryptoCertsForSigning: z.array(ZCryptoCert),
    cryptoCertsForEncryption: z.array(ZCryptoCert),
  })
  .meta({ id: 'TraceInstance' });
export type TTraceInstance = z.infer<typeof ZTraceInstance>;

/** `POST /ui/protect/tokens`: the pair a design owner's Protect registers with, shown once. */
export const ZProtectTokens = z.object({ token1: z.string(), token2: z.string() }).meta({ id: 'ProtectTokens' });
export type TProtectTokens = z.infer<typeof ZProtectTokens>;

/** Spec §3 Protect registration. `protectId` is token1; `name` empty until the Protect has registered. */
export const ZProtectInstance = z
  .object({
    id: z.string(),
    version: z.number().int(),
    protectId: z.string(),
    name: z.string(),
    userId: z.string(),
    fss: z.boolean(),
    registrationState: ZRegistrationState,
    dateCreated: z.string(),
  })
  .meta({ id: 'ProtectInstance' });
export type TProtectInstance = z.infer<typeof ZProtectInstance>;

/**
 * The `apl` a Protect instance posts to `/apl/registration/add` (aplType `protect`) with the token
 * pair an admin handed it, signed by its signing key.
 */
export const ZProtectApl = z.object({
  token1: z.string().min(1).max(128),
  token2: z.string().min(1).max(128),
  name: z.string().min(1).max(256),
  signingCertificate: z.string().min(1).max(65_536),
  encryptionCertificate: z.string().min(1).max(65_536),
});

/** `GET /apl/registration/status`: the state held for the peer whose signing certificate has this serial number. */
export const ZRegistrationStatusQuery = z.object({ keySerialNumber: z.string().min(1).max(128) });
export const ZRegistrationStatus = z
  .object({ keySerialNumber: z.string(), registrationState: ZRegistrationState })
  .meta({ id: 'RegistrationStatus' });
export type TRegistrationStatus = z.infer<typeof ZRegistrationStatus>;
