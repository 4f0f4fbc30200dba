/**
 * The secure file repository (spec §3 "Secure repository node", §7 `secure-repo/*`): folders
 * shared with groups and the files in them, encrypted at rest. Error tokens, audit kinds and
 * permission rows are merged into `manifoldErrorTokens`, `auditEventTypes` and `permissions`.
 */
import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZId } from './identifiers.js';
import { ZClassification, type TClassification } from './security.js';

export const secureRepoErrorTokens = {
  secureRepoNodeNotPresent: 'The folder or file does not exist',
  secureRepoNotAFolder: 'Files go into folders: the node named is a file',
  secureRepoNameInvalid: 'A name has 1 to 255 characters, is not . or .., and has no / or \\ and no control characters',
  secureRepoNameTaken: 'A folder or file with this name (ignoring case) already exists in this folder',
  secureRepoGroupsNotInParent: 'A folder can be shared only with groups its parent folder is shared with',
  secureRepoFolderTooDeep: 'Folders nest at most 16 levels deep',
  secureRepoFileCorrupted: 'The stored file does not decrypt: it was changed or damaged at rest',
  secureRepoFieldsFirst: 'Send nodeId before the file in the upload',
} as const;

export const secureRepoAuditEventTypes = [
  'secureRepoFolderCreated',
  'secureRepoFileUploaded',
  'secureRepoFileDownloaded',
  'secureRepoNodeEdited',
  'secureRepoNodeDeleted',
] as const;

export const secureRepoAuditEventText = {
  secureRepoFolderCreated: 'Secure folder created',
  secureRepoFileUploaded: 'Secure file uploaded',
  secureRepoFileDownloaded: 'Secure file downloaded',
  secureRepoNodeEdited: 'Secure folder or file edited',
  secureRepoNodeDeleted: 'Secure folder or file deleted',
} as const satisfies Record<(typeof secureRepoAuditEventTypes)[number], string>;

/** A node (folder or file); malformed or unknown (or hidden from the caller), it answers `secureRepoNodeNotPresent`. */
export const ZSecureRepoNodeId = ZId('secureRepoNodeNotPresent');

/** At most 16 levels of folders; a file sits in one of them. */
export const SECURE_REPO_MAX_DEPTH = 16;

const ZGroupIds = z.array(z.number().int().min(1).max(2_147_483_647)).max(1000);

export const ZSecureRepoNode = z
  .object({
    nodeId: z.string(),
    /** The folder it is in; null for a top-level folder. */
    parentNodeId: z.string().nullable(),
    nodeType: z.enum(['folder', 'file']),
    /** The node's name: a folder's name or a file's name. */
    folderName: z.string(),
    description: z.string(),
    /** A folder: the groups it is shared with. A file: those of its folder. */
    groups: z.array(z.number().int()),
    /** Who created it. */
    owner: z.string(),
    /** A file's size in bytes (plaintext); null for a folder. */
    size: z.number().int().nullable(),
    /** A file's SHA-256 (hex, of the plaintext); null for a folder. */
    sha256: z.string().nullable(),
    contentType: z.string().nullable(),
    /**
     * `CUI`, `FCI` or null: the strictest label on the node's way from the top (a folder's own
     * label applies to everything below it). Uploads into and downloads from a labelled folder
     * are gated by the access-control constraints `cui-upload`, `cui-download`, `fci-upload`,
     * `fci-download`.
     */
    classification: ZClassification.nullable(),
    dateCreated: z.string(),
    dateModified: z.string(),
  })
  .meta({ id: 'SecureRepoNode' });
export type TSecureRepoNode = z.infer<typeof ZSecureRepoNode>;

/** `GET secure-repo/list`: the children of `nodeId` (the top level without it), a page at a time. */
export const ZSecureRepoListQuery = ZPageQuery.extend({
  nodeId: ZSecureRepoNodeId.optional(),
});
export type TSecureRepoListQuery = z.infer<typeof ZSecureRepoListQuery>;

export const ZSecureRepoListResponse = z
  .object({
    nodes: z.array(ZSecureRepoNode),
    /** The folder listed; null at the top level. */
    currentNode: ZSecureRepoNode.nullable(),
    /** Who created the folder listed; null at the top level. */
    owner: z.string().nullable(),
    /** The folders from the top level down to the parent of `currentNode` (breadcrumbs). */
    ancestors: z.array(ZSecureRepoNode),
    pageNum: z.number().int(),
    numberOfItems: z.number().int(),
    totalNumOfPages: z.number().int(),
    totalNumOfItems: z.number().int(),
  })
  .meta({ id: 'SecureRepoListResponse' });
export type TSecureRepoListResponse = z.infer<typeof ZSecureRepoListResponse>;

export const ZSecureRepoCreateFolderRequest = z
  .object({
    /** The folder to create it in; absent or null: a top-level folder (ADMIN). */
    parentNodeId: ZSecureRepoNodeId.nullable().optional(),
    folderName: z.string().max(1000),
    description: z.string().max(2000).optional(),
    /** Groups to share it with, within the parent's; absent: the parent's groups. */
    groups: ZGroupIds.optional(),
    /** The folder's own label (ADMIN); inside a labelled folder it is at least that folder's. */
    classification: ZClassification.nullable().optional(),
  })
  .meta({ id: 'SecureRepoCreateFolderRequest' });
export type TSecureRepoCreateFolderRequest = z.infer<typeof ZSecureRepoCreateFolderRequest>;

export const ZSecureRepoEditRequest = z
  .object({
    nodeId: ZSecureRepoNodeId,
    description: z.string().max(2000).optional(),
    /**
     * A folder's groups (ADMIN): within the parent's; groups taken away are taken away from the
     * folders inside too.
     */
    groups: ZGroupIds.optional(),
    /** A folder's own label (ADMIN); null removes it (a label above still applies). */
    classification: ZClassification.nullable().optional(),
  })
  .meta({ id: 'SecureRepoEditRequest' });
export type TSecureRepoEditRequest = z.infer<typeof ZSecureRepoEditRequest>;

export const ZSecureRepoNodeRequest = z.object({ nodeId: ZSecureRepoNodeId }).meta({ id: 'SecureRepoNodeRequest' });
export type TSecureRepoNodeRequest = z.infer<typeof ZSecureRepoNodeRequest>;

export const ZSecureRepoDownloadQuery = z.object({ nodeId: ZSecureRepoNodeId });

const labelRank: Record<TClassification, number> = { FCI: 1, CUI: 2 };

/** The stricter of labels (CUI over FCI over none): what applies to a node below labelled folders. */
export function strictestClassification(...labels: (TClassification | null | undefined)[]): TClassification | null {
  let strictest: TClassification | null = null;
  for (const label of labels) if (label && (!strictest || labelRank[label] > labelRank[strictest])) strictest = label;
  return strictest;
}
