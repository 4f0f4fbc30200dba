import { z } from 'zod';

/** The storage providers (spec §3 Storage provider): the server's disk, S3 (or S3-compatible), Azure Blob. */
export const storageProviderIdentifiers = ['local', 'aws', 'azure'] as const;
export type TStorageProviderIdentifier = (typeof storageProviderIdentifiers)[number];

/**
 * A provider's credentials (write-only: never answered). The spec's fields plus where the
 * objects go: `awsStorageBucket` (and `awsStorageEndpoint` for an S3-compatible service),
 * `azureContainerName` (and `azureEndpoint` for Azurite or a sovereign cloud).
 */
export const ZStorageCredentials = z
  .object({
    awsStorageRegion: z.string().max(64).optional(),
    awsAccessKeyId: z.string().max(256).optional(),
    awsSecretAccessKey: z.string().max(1024).optional(),
    awsStorageBucket: z.string().max(63).optional(),
    awsStorageEndpoint: z.string().max(2048).optional(),
    azureAccountName: z.string().max(64).optional(),
    azureAccountKey: z.string().max(1024).optional(),
    azureContainerName: z.string().max(63).optional(),
    azureEndpoint: z.string().max(2048).optional(),
  })
  .strict()
  .meta({ id: 'StorageCredentials' });
export type TStorageCredentials = z.infer<typeof ZStorageCredentials>;

export const ZStorageProviderRequest = z
  .object({
    identifier: z.string().max(32).nullish(),
    credentials: ZStorageCredentials.nullish(),
  })
  .meta({ id: 'StorageProviderRequest' });
export type TStorageProviderRequest = z.infer<typeof ZStorageProviderRequest>;

export const storageMoveStates = ['running', 'done', 'failed'] as const;

/** Moving the stored files to a newly selected provider (in the background). */
export const ZStorageMove = z
  .object({
    from: z.string(),
    to: z.string(),
    state: z.enum(storageMoveStates),
    /** Objects to move, counted when the move started (objects stored meanwhile go to the new provider). */
    total: z.number().int(),
    moved: z.number().int(),
    lastError: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'StorageMove' });
export type TStorageMove = z.infer<typeof ZStorageMove>;

/**
 * The selected provider's settings that are no secret, as answered (`credentials` of the spec's
 * Storage provider, its keys left out): the S3 region, bucket and endpoint, the Azure account,
 * container and endpoint. `awsAccessKeyId`, `awsSecretAccessKey` and `azureAccountKey` are never
 * answered.
 */
export const ZStorageProviderSettings = ZStorageCredentials.pick({
  awsStorageRegion: true,
  awsStorageBucket: true,
  awsStorageEndpoint: true,
  azureAccountName: true,
  azureContainerName: true,
  azureEndpoint: true,
}).meta({ id: 'StorageProviderSettings' });
export type TStorageProviderSettings = z.infer<typeof ZStorageProviderSettings>;

/**
 * The selected provider: `configured` false until an admin chose one; of its credentials only the
 * settings that are no secret (`credentials`: null for the local disk or none chosen).
 */
export const ZStorageProvider = z
  .object({
    identifier: z.string().nullable(),
    configured: z.boolean(),
    credentials: ZStorageProviderSettings.nullable(),
    move: ZStorageMove.nullable(),
  })
  .meta({ id: 'StorageProvider' });
export type TStorageProvider = z.infer<typeof ZStorageProvider>;

export const ZStorageProviderList = z.object({ data: z.array(z.string()) }).meta({ id: 'StorageProviderList' });

/** Storage type names: lower-case letters, digits and dashes (they appear in URLs). */
export const storageTypeNamePattern = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const ZStorageType = z
  .object({ name: z.string().max(64), path: z.string().max(256), configured: z.boolean() })
  .meta({ id: 'StorageType' });
export type TStorageType = z.infer<typeof ZStorageType>;

export const ZStorageTypeInput = z
  .object({ name: z.string().max(64).nullish(), path: z.string().max(256).nullish(), configured: z.boolean().nullish() })
  .meta({ id: 'StorageTypeSetting' });

export const ZStorageTypeList = z.object({ data: z.array(ZStorageType) }).meta({ id: 'StorageTypeList' });
export const ZStorageTypeListRequest = z.object({ data: z.array(ZStorageTypeInput).max(100) });
export const ZStorageTypeQuery = z.object({ name: z.string().max(64) });

/** Names of typed-storage files: a single segment of letters, digits, `.`, `_`, `-`, space; not `.`-led. */
export const storageFileNamePattern = /^[A-Za-z0-9_-][A-Za-z0-9._ -]{0,254}$/;

export const ZStorageFile = z
  .object({ filename: z.string(), filesize: z.number().int(), sha256: z.string(), dateCreated: z.string() })
  .meta({ id: 'StorageFile' });
export type TStorageFile = z.infer<typeof ZStorageFile>;
export const ZStorageFileList = z.object({ data: z.array(ZStorageFile) }).meta({ id: 'StorageFileList' });

export const ZDasConfig = z.object({ enabled: z.boolean() }).meta({ id: 'DasConfig' });
export type TDasConfig = z.infer<typeof ZDasConfig>;

/** The largest design package file `das/upload` takes (its manifest is read whole). */
export const DAS_PACKAGE_MAX_BYTES = 16 * 1024 * 1024;

const ZHttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine((text) => !/[\s]/.test(text), 'no spaces');

/**
 * A design package file (`das/upload`): a DSI entry with its signed manifest, as
 * `das/fetch?revisionId` answers it — so a revision built on one instance can be archived on
 * another. `dsiId`, `dsiVersion`, `version`, `designName`, `description`, `companyName`,
 * `multiPlaten` and `dateCreated` are read from the manifest (whose SHA-256 must be
 * `digestValue`); the other DSI entry fields from the file.
 */
export const ZDasPackage = z.object({
  manifest: z.string().min(2),
  digestMethod: z.literal('SHA-256'),
  digestValue: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().min(1).max(16_384),
  publicKeySN: z.string().max(128).nullish(),
  keyRoleSN: z.string().max(128).nullish(),
  displayImage: z.string().max(300).nullish(),
  protectUserName: z.string().max(160).nullish(),
  image_url: ZHttpUrl.nullish(),
  dsi_url: ZHttpUrl.nullish(),
  manage_url: ZHttpUrl.nullish(),
});
export type TDasPackage = z.infer<typeof ZDasPackage>;

/** Audit record kinds of storage settings and typed storage. */
export const storageAuditEventTypes = [
  'storageProviderChanged',
  'storageTypesChanged',
  'storageFileUploaded',
  'dasSettingChanged',
  'dasPackageUploaded',
] as const;
