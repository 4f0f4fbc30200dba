import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import {
  SECURE_REPO_MAX_DEPTH,
  strictestClassification,
  type TClassification,
  type TPageQuery,
  type TSecureRepoCreateFolderRequest,
  type TSecureRepoEditRequest,
  type TSecureRepoListResponse,
  type TSecureRepoNode,
} from '@manifold/contract';
import { createRecordDecryptStream, createRecordEncryptStream, recordOverheadBytes } from '../../crypto/record-encryption.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { SecureRepoNodeRow, SecureRepoNodeValues } from '../../db/schema-secure-repo.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { sanitizeContentType } from '../../lib/file-names.js';
import { isoNow } from '../../lib/time.js';
import { uploadError } from '../../lib/upload-errors.js';
import { chain } from '../../lib/upload-streams.js';
import { DigestCounter, type Storage, StorageNotFoundError, type StoredObject } from '../../storage/storage.js';
import type { ClassificationGate } from '../access-control/access-control.service.js';
import { parseClassification } from '../access-control/classification.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { KeySealer } from '../provision/key-sealer.js';
import { checkedNodeName, nodeNameKey } from './node-names.js';
import { SecureRepoRepository, type Viewer } from './secure-repo.repository.js';

export interface SecureUpload {
  nodeId: string;
  /** As the client named it: checked, never a path. */
  fileName: string | undefined;
  contentType: string | undefined;
  /** The file's bytes; errors when the upload is cut off or too large. */
  stream: Readable;
}

export interface OpenedSecureFile {
  node: TSecureRepoNode;
  /** The plaintext; every byte it yields was authenticated first (records, see crypto/record-encryption.ts). */
  stream: Readable;
}

/**
 * The secure file repository: folders shared with groups and the files in them. A USER sees and
 * touches only folders shared with one of their groups (and the files in those); a subfolder is
 * shared with a subset of its parent's groups, so whoever sees a folder sees the way to it.
 * Files are encrypted at rest with a key of their own (AES-256-GCM records), sealed with the
 * server's key-encryption key. Uploads, downloads and deletes are audited.
 */
export class SecureRepoService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly sealer: KeySealer,
    private readonly uploadMaxBytes: number,
    private readonly classificationGate: ClassificationGate,
  ) {}

  private repository(db: Kysely<DB> = this.database.db): SecureRepoRepository {
    return new SecureRepoRepository(db, this.database.dialect);
  }

  private audit(db: Kysely<DB>): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }

  async list(query: TPageQuery & { nodeId?: string | undefined }, caller: Caller): Promise<TSecureRepoListResponse> {
    const viewer = viewerOf(caller);
    const { nodeId, ...page } = query;
    const current = nodeId === undefined ? undefined : await this.visibleFolder(nodeId, viewer, 'nodeId');
    const repository = this.repository();
    const children = await repository.listChildren(current?.id ?? '', viewer, page);
    const ancestors = current ? await repository.nodesByDepth(idsOnPath(current.path).slice(0, -1)) : [];
    const folders = [...ancestors, ...(current ? [current] : []), ...children.data.filter((row) => row.is_folder === 1)];
    const groups = await repository.groupsOf(folders.map((row) => row.id));
    // labels apply downwards: each node carries the strictest label on its way from the top
    const labels: (TClassification | null)[] = [];
    const ancestorNodes = ancestors.map((row) => {
      labels.push(strictestClassification(labels.at(-1), parseClassification(row.classification)));
      return nodeOf(row, groups, labels.at(-1)!);
    });
    const currentLabel = current ? strictestClassification(labels.at(-1), parseClassification(current.classification)) : null;
    return {
      nodes: children.data.map((row) =>
        nodeOf(row, groups, strictestClassification(currentLabel, parseClassification(row.classification))),
      ),
      currentNode: current ? nodeOf(current, groups, currentLabel) : null,
      owner: current?.owner ?? null,
      ancestors: ancestorNodes,
      pageNum: children.pageNum,
      numberOfItems: children.numberOfItems,
      totalNumOfPages: children.totalNumOfPages,
      totalNumOfItems: children.totalNumOfItems,
    };
  }

  async createFolder(input: TSecureRepoCreateFolderRequest, caller: Caller): Promise<TSecureRepoNode> {
    const viewer = viewerOf(caller);
    const name = checkedNodeName(input.folderName, 'folderName');
    const parentId = input.parentNodeId ?? undefined;
    if (parentId === undefined && viewer) {
      throw new AppError('actionNotAllowed', { description: 'Only an administrator creates top-level folders' });
    }
    const parent = parentId === undefined ? undefined : await this.visibleFolder(parentId, viewer, 'parentNodeId');
    if (parent && parent.depth + 1 >= SECURE_REPO_MAX_DEPTH)
      throw new AppError('secureRepoFolderTooDeep', { field: 'parentNodeId' });
    // checked here for an early answer, and again under the transaction's locks below
    if (input.groups) await this.lockedGroups(this.repository(), input.groups, parent?.id);
    if (input.classification !== undefined && viewer)
      throw new AppError('actionNotAllowed', { description: 'Only an administrator labels folders CUI or FCI' });
    const classification = input.classification ?? null;
    const id = randomUUID();
    const now = isoNow();
    const row: SecureRepoNodeValues = {
      id,
      parent_id: parent?.id ?? null,
      parent_key: parent?.id ?? '',
      path: `${parent?.path ?? '/'}${id}/`,
      depth: parent ? parent.depth + 1 : 0,
      is_folder: 1,
      name,
      name_key: nodeNameKey(name),
      description: input.description ?? '',
      owner: caller.username,
      size: null,
      sha256: null,
      content_type: null,
      storage_key: null,
      stored_size: null,
      sealed_key: null,
      classification,
      created_at: now,
      updated_at: now,
    };
    const shared = await this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      if (parent && !(await repository.lockPath(parent.path)))
        throw new AppError('secureRepoNodeNotPresent', { field: 'parentNodeId' });
      const shared = await this.lockedGroups(repository, input.groups, parent?.id);
      await insertUnlessNameTaken(repository, row, 'folderName');
      await repository.replaceGroups(id, shared);
      await this.audit(trx).recordBy(caller, 'secureRepoFolderCreated', id, {
        folderName: name,
        parentNodeId: row.parent_id,
        groups: shared,
        ...(classification ? { classification } : {}),
      });
      return shared;
    });
    return nodeOf(row, new Map([[id, shared]]), strictestClassification(parent && (await this.labelOf(parent)), classification));
  }

  /**
   * Streams a file into a folder: counted and hashed, encrypted in records under a fresh key,
   * stored; the row (with the sealed key) is written only once the object is durable, and the
   * object removed when the row cannot be.
   */
  async upload(input: SecureUpload, caller: Caller): Promise<TSecureRepoNode> {
    const folder = await this.visibleFolder(input.nodeId, viewerOf(caller), 'nodeId');
    const label = await this.labelOf(folder);
    await this.classificationGate.requireForLabel(caller, label, 'upload');
    const name = checkedNodeName(input.fileName, 'file');
    const nameKey = nodeNameKey(name);
    if (await this.repository().nameTaken(folder.id, nameKey)) throw new AppError('secureRepoNameTaken', { field: 'file' });

    const contentKey = randomBytes(32);
    const sealedKey = this.sealer.seal(contentKey.toString('base64'));
    const plain = new DigestCounter(this.uploadMaxBytes);
    let stored: StoredObject;
    try {
      // the plaintext is hashed above; a second SHA-256 of the ciphertext would serve nothing
      stored = await this.storage.put(chain(input.stream, plain, createRecordEncryptStream(contentKey)), {
        maxBytes: this.uploadMaxBytes + recordOverheadBytes(this.uploadMaxBytes),
        digest: false,
      });
    } catch (error) {
      throw uploadError(error);
    }
    const id = randomUUID();
    const now = isoNow();
    const row: SecureRepoNodeValues = {
      id,
      parent_id: folder.id,
      parent_key: folder.id,
      path: `${folder.path}${id}/`,
      depth: folder.depth + 1,
      is_folder: 0,
      name,
      name_key: nameKey,
      description: '',
      owner: caller.username,
      size: plain.size,
      sha256: plain.sha256(),
      content_type: sanitizeContentType(input.contentType),
      storage_key: stored.key,
      stored_size: stored.size,
      sealed_key: sealedKey,
      classification: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.database.transaction(async (trx) => {
        const repository = this.repository(trx);
        if (!(await repository.lockPath(folder.path))) throw new AppError('secureRepoNodeNotPresent', { field: 'nodeId' });
        await insertUnlessNameTaken(repository, row, 'file');
        await this.audit(trx).recordBy(caller, 'secureRepoFileUploaded', id, {
          folderNodeId: folder.id,
          fileName: name,
          size: plain.size,
          sha256: row.sha256,
        });
      });
    } catch (error) {
      await this.storage.delete(stored.key);
      throw error;
    }
    const groups = await this.repository().groupsOf([folder.id]);
    return nodeOf(row, groups, label);
  }

  /**
   * Opens a file for download. The first record is decrypted and verified before this answers,
   * so a file changed at rest in its first 64 KiB (every small file) is refused with
   * `secureRepoFileCorrupted`; a change further on fails the stream at that record, before any
   * of its bytes are passed on. The download is audited once the first record verified.
   */
  async open(nodeId: string, caller: Caller): Promise<OpenedSecureFile> {
    const node = await this.visibleNode(nodeId, viewerOf(caller), 'nodeId');
    if (node.is_folder === 1 || !node.storage_key || !node.sealed_key) {
      throw new AppError('secureRepoNotAFolder', { field: 'nodeId', description: 'A folder cannot be downloaded; name a file' });
    }
    const label = await this.labelOf(node);
    await this.classificationGate.requireForLabel(caller, label, 'download');
    let contentKey: Buffer;
    try {
      contentKey = Buffer.from(this.sealer.open(node.sealed_key), 'base64');
    } catch {
      throw new AppError('secureRepoFileCorrupted', { field: 'nodeId', description: 'The file key does not open' });
    }
    let source: Readable;
    try {
      source = await this.storage.get(node.storage_key);
    } catch (error) {
      throw readError(error);
    }
    const plain = chain(source, createRecordDecryptStream(contentKey));
    const iterator = plain[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let first: IteratorResult<Buffer>;
    try {
      first = await iterator.next();
    } catch (error) {
      throw readError(error);
    }
    let groups: Map<string, number[]>;
    try {
      await this.audit(this.database.db).recordBy(caller, 'secureRepoFileDownloaded', node.id, {
        folderNodeId: node.parent_id,
        fileName: node.name,
        size: Number(node.size),
      });
      groups = await this.repository().groupsOf([node.parent_id!]);
    } catch (error) {
      plain.destroy();
      throw error;
    }
    // a client that goes away ends the generator: the storage stream is closed with it
    async function* rest(): AsyncGenerator<Buffer> {
      try {
        if (first.done) return;
        yield first.value;
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield next.value;
        }
      } finally {
        plain.destroy();
      }
    }
    return { node: nodeOf(node, groups, label), stream: Readable.from(rest(), { objectMode: false }) };
  }

  async edit(input: TSecureRepoEditRequest, caller: Caller): Promise<TSecureRepoNode> {
    const viewer = viewerOf(caller);
    const node = await this.visibleNode(input.nodeId, viewer, 'nodeId');
    const repository = this.repository();
    let groups: number[] | undefined;
    if (input.groups) {
      if (node.is_folder !== 1) {
        throw new AppError('secureRepoNotAFolder', { field: 'groups', description: 'A file is shared with its folder’s groups' });
      }
      if (viewer)
        throw new AppError('actionNotAllowed', { description: 'Only an administrator changes whom a folder is shared with' });
      // checked here for an early answer, and again under the transaction's locks below
      groups = await this.lockedGroups(repository, input.groups, node.parent_id ?? undefined);
    }
    if (input.classification !== undefined) {
      if (node.is_folder !== 1) {
        throw new AppError('secureRepoNotAFolder', {
          field: 'classification',
          description: 'A file carries its folder’s label',
        });
      }
      if (viewer) throw new AppError('actionNotAllowed', { description: 'Only an administrator labels folders CUI or FCI' });
    }
    const description = input.description ?? node.description;
    const classification = input.classification === undefined ? node.classification : input.classification;
    const updatedAt = isoNow();
    await this.database.transaction(async (trx) => {
      const locked = this.repository(trx);
      // the folders above too: a parent narrowed meanwhile is seen, and a delete above is answered
      if (!(await locked.lockPath(node.path))) throw new AppError('secureRepoNodeNotPresent', { field: 'nodeId' });
      if (groups) groups = await this.lockedGroups(locked, input.groups, node.parent_id ?? undefined);
      await locked.updateNode(node.id, { description, classification, updated_at: updatedAt });
      if (groups) {
        await locked.replaceGroups(node.id, groups);
        await locked.narrowDescendants(node.path, groups);
      }
      await this.audit(trx).recordBy(caller, 'secureRepoNodeEdited', node.id, {
        ...(input.description !== undefined ? { description } : {}),
        ...(groups ? { groups } : {}),
        ...(input.classification !== undefined ? { classification } : {}),
      });
    });
    const folderId = node.is_folder === 1 ? node.id : node.parent_id!;
    const edited = { ...node, description, classification, updated_at: updatedAt };
    return nodeOf(edited, await this.repository().groupsOf([folderId]), await this.labelOf(edited));
  }

  /**
   * Deletes a file, or a folder with everything in it: rows and audit records in one
   * transaction, then the stored objects. A USER deletes only below the top level and only
   * folders whose every subfolder they see.
   */
  async delete(nodeId: string, caller: Caller): Promise<void> {
    const viewer = viewerOf(caller);
    const node = await this.visibleNode(nodeId, viewer, 'nodeId');
    if (viewer && node.is_folder === 1 && node.parent_id === null)
      throw new AppError('actionNotAllowed', { description: 'Only an administrator deletes top-level folders' });
    const removed = await this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      if (!(await repository.lockNode(node.id))) throw new AppError('secureRepoNodeNotPresent', { field: 'nodeId' });
      // under the lock: a folder made (or narrowed) out of the user's sight below it meanwhile is seen
      if (viewer && node.is_folder === 1 && (await repository.hiddenFoldersBelow(node.path, viewer.userId)) > 0) {
        throw new AppError('actionNotAllowed', { description: 'The folder holds folders you cannot see' });
      }
      const subtree = await repository.subtree(node.path);
      await repository.deleteSubtree(node.path);
      const audit = this.audit(trx);
      const files = subtree.filter((row) => row.is_folder === 0);
      await audit.recordBy(caller, 'secureRepoNodeDeleted', node.id, {
        nodeType: node.is_folder === 1 ? 'folder' : 'file',
        name: node.name,
        parentNodeId: node.parent_id,
        files: files.length,
        folders: subtree.length - files.length,
      });
      for (const file of files) {
        if (file.id !== node.id)
          await audit.recordBy(caller, 'secureRepoNodeDeleted', file.id, {
            nodeType: 'file',
            name: file.name,
            deletedWith: node.id,
          });
      }
      return files;
    });
    for (const file of removed) if (file.storage_key) await this.storage.delete(file.storage_key);
  }

  /** A node the caller may see, else `secureRepoNodeNotPresent` (what a USER may not see does not exist for them). */
  private async visibleNode(id: string, viewer: Viewer, field: string): Promise<SecureRepoNodeRow> {
    const repository = this.repository();
    const node = await repository.findNode(id);
    const folderId = node?.is_folder === 1 ? node.id : node?.parent_id;
    if (!node || !folderId || (viewer && !(await repository.folderSharedWith(folderId, viewer.userId)))) {
      throw new AppError('secureRepoNodeNotPresent', { field });
    }
    return node;
  }

  private async visibleFolder(id: string, viewer: Viewer, field: string): Promise<SecureRepoNodeRow> {
    const node = await this.visibleNode(id, viewer, field);
    if (node.is_folder !== 1) throw new AppError('secureRepoNotAFolder', { field });
    return node;
  }

  /**
   * The label that applies to a node: the strictest of its own and its folders' up to the top
   * (a label set on a folder covers everything below it).
   */
  private async labelOf(node: Pick<SecureRepoNodeRow, 'path' | 'classification'>): Promise<TClassification | null> {
    const above = await this.repository().labelsOnPath(idsOnPath(node.path));
    return strictestClassification(parseClassification(node.classification), ...above.map(parseClassification));
  }

  /**
   * The groups a folder under `parentId` (none: a top-level folder) is to be shared with: the
   * parent's when none are requested, else the requested ones checked by `checkedGroups`. In a
   * transaction holding the parent's path, the groups are locked against their deletion.
   */
  private async lockedGroups(
    repository: SecureRepoRepository,
    requested: readonly number[] | undefined,
    parentId: string | undefined,
  ): Promise<number[]> {
    const parentGroups = parentId ? ((await repository.groupsOf([parentId])).get(parentId) ?? []) : undefined;
    if (!requested) return parentGroups ?? [];
    return this.checkedGroups(repository, requested, parentGroups);
  }

  /** Distinct existing groups (`groupNotPresent`), within the parent's when there is a parent. */
  private async checkedGroups(
    repository: SecureRepoRepository,
    requested: readonly number[],
    parentGroups: readonly number[] | undefined,
  ): Promise<number[]> {
    const groups = [...new Set(requested)].sort((a, b) => a - b);
    const existing = await repository.existingGroups(groups);
    if (groups.some((id) => !existing.has(id))) throw new AppError('groupNotPresent', { field: 'groups' });
    if (parentGroups && groups.some((id) => !parentGroups.includes(id))) {
      throw new AppError('secureRepoGroupsNotInParent', { field: 'groups' });
    }
    return groups;
  }
}

function viewerOf(caller: Caller): Viewer {
  return caller.role === 'ADMIN' ? undefined : { userId: caller.userId };
}

function idsOnPath(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function nodeOf(row: SecureRepoNodeRow, groups: Map<string, number[]>, classification: TClassification | null): TSecureRepoNode {
  const isFolder = row.is_folder === 1;
  return {
    nodeId: row.id,
    parentNodeId: row.parent_id,
    nodeType: isFolder ? 'folder' : 'file',
    folderName: row.name,
    description: row.description,
    groups: groups.get(isFolder ? row.id : (row.parent_id ?? '')) ?? [],
    owner: row.owner,
    size: row.size === null ? null : Number(row.size),
    sha256: row.sha256,
    contentType: row.content_type,
    classification,
    dateCreated: row.created_at,
    dateModified: row.updated_at,
  };
}

async function insertUnlessNameTaken(repository: SecureRepoRepository, row: SecureRepoNodeValues, field: string): Promise<void> {
  try {
    await repository.insertNode(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('secureRepoNameTaken', { field });
    throw error;
  }
}

function readError(error: unknown): Error {
  if (error instanceof AppError) return error;
  if (error instanceof Error && error.name === 'CryptoError') {
    return new AppError('secureRepoFileCorrupted', {
      field: 'nodeId',
      description: `The stored file does not decrypt: ${error.message}`,
    });
  }
  const reason =
    error instanceof StorageNotFoundError
      ? 'the stored object is missing'
      : error instanceof Error
        ? error.message
        : String(error);
  return new AppError('storageTypeReadError', { field: 'nodeId', description: `The file could not be read: ${reason}` });
}
