import { z } from 'zod';
import { ZKeyType } from './enums.js';

/**
 * Keys and certificates of this server (spec §3 "CSR response", "Provision key type", §7
 * `admin/provision`, `admin/upload/provision`, `/certificate/certificateChain`).
 *
 * Enumerated fields are typed as strings here: a value outside the spec's list is a business
 * error (420, spec §5), a wrong JSON type a malformed request (400).
 */

/** `POST admin/provision`: create the signing and encryption key pairs; `rekey` replaces existing ones. */
export const ZProvisionRequest = z
  .object({
    // bounded, yet long enough that any name that is not RSA or EC answers keyTypeInvalid
    keyType: z.string().max(256).nullish(),
    rekey: z.boolean().optional(),
  })
  .meta({ id: 'ProvisionRequest' });
export type TProvisionRequest = z.infer<typeof ZProvisionRequest>;

export const ZProvisionResponse = z
  .object({
    keyType: ZKeyType,
    /** Counts from 1; each re-key adds one. */
    generation: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'ProvisionResponse' });
export type TProvisionResponse = z.infer<typeof ZProvisionResponse>;

/** `GET admin/provision?csr&service`: `csr` signing, encryption or both (absent: both); `service` default manage. */
export const ZCsrQuery = z.object({
  // bounded, yet long enough that a value outside the lists answers its token, not 400
  csr: z.string().max(256).optional(),
  service: z.string().max(256).optional(),
});
export type TCsrQuery = z.infer<typeof ZCsrQuery>;

/** Spec §3 "CSR response": PEM PKCS#10 requests; the one not asked for is null. */
export const ZCsrResponse = z
  .object({
    signingCSR: z.string().nullable(),
    encryptionCSR: z.string().nullable(),
  })
  .meta({ id: 'CsrResponse' });
export type TCsrResponse = z.infer<typeof ZCsrResponse>;

/** What an upload to `admin/upload/provision` is: the server's signing or encryption certificate, or a network root. */
export const uploadCertificateTypes = ['signing', 'encryption', 'trustAnchor'] as const;
export type TUploadCertificateType = (typeof uploadCertificateTypes)[number];

/** The multipart form of `admin/upload/provision` (documentation; the fields are read from the stream). */
export const ZProvisionUploadForm = z
  .object({
    file: z.string().meta({
      format: 'binary',
      description: 'PEM: the certificate, optionally followed by its chain (at most 256 KiB)',
    }),
    certificateType: z.enum(uploadCertificateTypes).meta({
      description:
        'signing or encryption: a certificate for that key pair of this server; trustAnchor: a root certificate of the network',
    }),
  })
  .meta({ description: 'multipart/form-data fields (read from the stream, in any order)' });

/** A certificate as the console shows it. */
export const ZCertificateInfo = z
  .object({
    subject: z.string(),
    issuer: z.string(),
    /** Upper-case hex. */
    serialNumber: z.string(),
    notBefore: z.string(),
    notAfter: z.string(),
    keyUsage: z.array(z.string()),
    /** SHA-256 of the DER certificate, upper-case hex pairs joined by colons. */
    fingerprintSha256: z.string(),
    keyType: z.enum(['RSA', 'EC', 'other']),
    /** Issued by (or, for a trust anchor, being) the development CA: never for production. */
    development: z.boolean(),
  })
  .meta({ id: 'CertificateInfo' });
export type TCertificateInfo = z.infer<typeof ZCertificateInfo>;

/** Answer of `admin/upload/provision`: what was installed, then the rest of its chain (or the other anchors of the file). */
export const ZProvisionUploadResponse = z
  .object({
    certificateType: z.enum(uploadCertificateTypes),
    certificate: ZCertificateInfo,
    chain: z.array(ZCertificateInfo),
  })
  .meta({ id: 'ProvisionUploadResponse' });
export type TProvisionUploadResponse = z.infer<typeof ZProvisionUploadResponse>;

/** `GET admin/provision/certificates`: the wizard's view of the server's keys and certificates. */
export const ZProvisionCertificates = z
  .object({
    /** Key type of the provisioned key pairs; null before `POST admin/provision`. */
    keyType: ZKeyType.nullable(),
    signing: ZCertificateInfo.nullable(),
    encryption: ZCertificateInfo.nullable(),
    trustAnchors: z.array(ZCertificateInfo),
    /** Whether `POST admin/provision/development-ca` is enabled (`DEVELOPMENT_CA=true`). */
    developmentCaEnabled: z.boolean(),
  })
  .meta({ id: 'ProvisionCertificates' });
export type TProvisionCertificates = z.infer<typeof ZProvisionCertificates>;

export const replyRequests = ['both', 'signing', 'encryption'] as const;
export type TReplyRequest = (typeof replyRequests)[number];

/** PEM text of one certificate or a short bundle. */
const ZPem = z.string().max(65_536);

/** `POST /certificate/certificateChain` (partner interface). */
export const ZCertificateChainRequest = z
  .object({
    replyRequest: z.string().max(16).nullish(),
    /** The caller's service: manage, trace, enforce or protect; default manage. */
    certificateType: z.string().max(16).nullish(),
    /** The caller's certificate chain, leaf first (PEM). */
    certificate: z.array(ZPem).max(10).nullish(),
  })
  .meta({ id: 'CertificateChainRequest' });
export type TCertificateChainRequest = z.infer<typeof ZCertificateChainRequest>;

/** This server's certificates (PEM, leaf first, then its intermediates); the one not asked for is null. */
export const ZCertificateChainResponse = z
  .object({
    signingCertificate: ZPem.nullable(),
    encryptionCertificate: ZPem.nullable(),
  })
  .meta({ id: 'CertificateChainResponse' });
export type TCertificateChainResponse = z.infer<typeof ZCertificateChainResponse>;
