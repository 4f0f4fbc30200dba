import { z } from 'zod';
import { ZDsiId, ZId } from './identifiers.js';
import { ZRegistrationState } from './enums.js';

/**
 * Designs and machine data between instances, and the FSS calls of a design owner's Protect
 * (docs/peer-network.md#designs-between-instances, #the-fss-calls).
 */

/** `POST /ui/das/transfer`: the newest built revision of the package goes to the Manage instance. */
export const ZDasTransferRequest = z
  .object({ dsiId: ZDsiId, manageId: ZId('manageIdNotValid') })
  .meta({ id: 'DasTransferRequest' });
export type TDasTransferRequest = z.infer<typeof ZDasTransferRequest>;

/** `POST /ui/dtl/transfer`: a machine data record goes to the Manage instance. */
export const ZDtlTransferRequest = z
  .object({ dtlId: ZId('dtlNotPresent'), manageId: ZId('manageIdNotValid') })
  .meta({ id: 'DtlTransferRequest' });
export type TDtlTransferRequest = z.infer<typeof ZDtlTransferRequest>;

/** The answer of both transfers: the outbox message that carries it (`GET /ui/admin/outbox`). */
export const ZTransferResponse = z
  .object({ messageId: z.string(), manageId: z.string(), subjectId: z.string() })
  .meta({ id: 'TransferResponse' });
export type TTransferResponse = z.infer<typeof ZTransferResponse>;

/**
 * A design package as `/mpf/design` receives it (the JSON of the multipart field `design`): a
 * revision's signed manifest (canonical JSON, detached JWS by `signerCertificate`, a chain to a
 * trust anchor), the revision id, and for each file of the manifest its content key wrapped for
 * the receiver's encryption certificate (null for public files). The `file` parts follow, one per
 * manifest file in manifest order, as stored (private files encrypted with their content key).
 */
export const ZDesignPackage = z.object({
  revisionId: z.uuid(),
  manifest: z.string().min(2).max(4_194_304),
  manifestSignature: z.string().min(1).max(16_384),
  signerCertificate: z.string().min(1).max(65_536),
  files: z.array(z.object({ fileId: z.string().min(1).max(64), wrappedKey: z.string().max(8192).nullable() })).max(1000),
});
export type TDesignPackage = z.infer<typeof ZDesignPackage>;

/** The body of a `machineData` message: a machine data record; its bytes follow as the `file` part. */
export const ZMachineDataTransfer = z.object({
  dtlId: z.uuid(),
  deviceId: z.string().min(1).max(64),
  authorizationId: z.string().max(64).nullable(),
  orderId: z.string().max(64).nullable(),
  dsiId: z.string().max(64).nullable(),
  fileName: z.string().min(1).max(255),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  dateCreated: z.string().max(40),
});
export type TMachineDataTransfer = z.infer<typeof ZMachineDataTransfer>;

/** What `/mpf/design` answers a Protect (a Manage peer gets the outbox acknowledgement). */
export const ZDesignReceived = z
  .object({ dsiId: z.string(), revisionId: z.string(), dsiVersion: z.number().int(), digest: z.string() })
  .meta({ id: 'DesignReceived' });
export type TDesignReceived = z.infer<typeof ZDesignReceived>;

// FSS (spec §7 "FSS"): a Protect registered with a token pair

/** `POST /fss/protect/register-request {token}`: token1 of an unused or used pair. */
export const ZFssRegisterRequest = z.object({ token: z.string().min(1).max(256) }).meta({ id: 'FssRegisterRequest' });

/** Its answer: what the Protect needs to encrypt for this instance and check its answers. */
export const ZFssRegisterRequestResponse = z
  .object({
    protectId: z.string(),
    siteName: z.string(),
    serverUrl: z.string(),
    /** PEM chains, leaf first. */
    signingCertificate: z.string(),
    encryptionCertificate: z.string(),
    registrationState: ZRegistrationState,
    registered: z.boolean(),
  })
  .meta({ id: 'FssRegisterRequestResponse' });
export type TFssRegisterRequestResponse = z.infer<typeof ZFssRegisterRequestResponse>;

/**
 * The body of the other FSS calls and of their answers: `payload` is a compact JWE (for the
 * receiver's encryption certificate: RSA-OAEP-256 or ECDH-ES+A256KW, A256GCM) whose plaintext
 * is a compact JWS (by the sender's signing key, RS256 or ES256) of the JSON claims.
 */
export const ZFssPayload = z.object({ payload: z.string().min(1).max(1_048_576) }).meta({ id: 'FssPayload' });
export type TFssPayload = z.infer<typeof ZFssPayload>;

/** Claims every Protect payload carries: who (token1), when, and a nonce used once. */
const fssClaims = { protectId: z.string().min(1).max(256), timestamp: z.string().max(40), nonce: z.uuid() };

/** The registration: the `apl` of a Protect registration (token1, token2, …) with `timestamp` and `nonce`. */
export const ZFssRegisterClaims = z.object({
  token1: z.string().min(1).max(256),
  timestamp: z.string().max(40),
  nonce: z.uuid(),
  token2: z.string().min(1).max(256),
  name: z.string().min(1).max(256),
  signingCertificate: z.string().min(1).max(65_536),
  encryptionCertificate: z.string().min(1).max(65_536),
});
export const ZFssOrderClaims = z.object({ ...fssClaims, authorizationAuthorizedPolicyList: z.unknown() });
export const ZFssUploadTokenClaims = z.object(fssClaims);
export const ZFssDeleteClaims = z.object({ ...fssClaims, dsiId: z.uuid() });
export type TFssRegisterClaims = z.infer<typeof ZFssRegisterClaims>;

/** Claims of this instance's answers (encrypted for the Protect, signed by this instance). */
export const ZFssAnswerClaims = z.object({
  timestamp: z.string(),
  inReplyTo: z.string(),
  result: z.record(z.string(), z.unknown()),
});
export type TFssAnswerClaims = z.infer<typeof ZFssAnswerClaims>;

export const peerDesignAuditEventTypes = ['designTransferred', 'designReceived', 'machineDataTransferred'] as const;
