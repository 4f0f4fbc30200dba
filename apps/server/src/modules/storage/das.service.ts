import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import { DAS_PACKAGE_MAX_BYTES, type TDsiEntry, type TDsiRevision, ZDasPackage, ZPackageManifest } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Insertable, Selectable } from 'kysely';
import type { DasEntriesTable } from '../../db/schema-storage.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import type { ProviderStorage } from '../../storage/provider-storage.js';
import { parseCarryableJson, parseJsonText } from '../../plugins/input-hygiene.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { DasRepository } from './das.repository.js';
import { describe, putUpload } from './typed-storage.service.js';

/**
 * The design archive's uploads (`das/upload`, docs/storage.md): a design package file — a DSI
 * entry with its manifest and signature, as `das/fetch` answers it — streamed into the storage
 * provider, then read back and checked; the DSI entry fields become a row `das/list` shows.
 */
export class DasService {
  constructor(
    private readonly database: Database,
    private readonly storage: ProviderStorage,
    private readonly publicUrl: string,
  ) {}

  /**
   * An uploaded entry with its exact manifest (read from the stored package file), for
   * `das/fetch`; undefined when no uploaded entry has this id (it may be a revision built here).
   */
  async fetchUploaded(revisionId: string): Promise<TDsiRevision | undefined> {
    const row = await new DasRepository(this.database.db).findEntry(revisionId);
    if (!row) return undefined;
    const bytes = await this.read(row.storage_key, 'revisionId');
    let manifest: string | undefined;
    try {
      // the file as uploaded: it may start with a byte order mark (entryFields)
      manifest = ZDasPackage.parse(parseJsonText(bytes.toString('utf8'))).manifest;
    } catch {
      manifest = undefined;
    }
    if (manifest === undefined || sha256(manifest) !== row.digest) {
      throw new AppError('storageTypeReadError', {
        field: 'revisionId',
        description: 'The stored design package is not the one uploaded',
      });
    }
    return { ...toDsiEntry(row), manifest };
  }

  /** A stored package file's bytes (at most `DAS_PACKAGE_MAX_BYTES`: all a put accepted). */
  private async read(key: string, field: string): Promise<Buffer> {
    try {
      return await buffer(await this.storage.get(key));
    } catch (error) {
      throw new AppError('storageTypeReadError', { field, description: `The file could not be read: ${describe(error)}` });
    }
  }

  async upload(stream: Readable, caller: Caller): Promise<TDsiEntry> {
    if (!(await this.storage.selection())) {
      stream.resume();
      throw new AppError('storageNotEnabled');
    }
    const stored = await putUpload(this.storage, stream, DAS_PACKAGE_MAX_BYTES);
    try {
      const bytes = await this.read(stored.key, 'file');
      const row: Insertable<DasEntriesTable> & EntryFields = {
        ...entryFields(bytes),
        id: randomUUID(),
        storage_key: stored.key,
        size: stored.size,
        sha256: stored.sha256,
        created_by: caller.username,
        created_at: isoNow(),
      };
      await this.database.transaction(async (trx) => {
        const repository = new DasRepository(trx);
        if (await repository.versionTaken(row.dsi_id, row.dsi_version)) throw versionTaken();
        try {
          await repository.insertEntry(row);
        } catch (error) {
          throw isUniqueViolation(error) ? versionTaken() : error;
        }
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'dasPackageUploaded', row.dsi_id, {
          dsiVersion: row.dsi_version,
          designName: row.design_name,
          digestValue: row.digest,
          size: stored.size,
          sha256: stored.sha256,
        });
      });
      return toDsiEntry(row);
    } catch (error) {
      await this.storage.delete(stored.key).catch(() => undefined);
      throw error;
    }
  }
}

/** The DSI entry of an uploaded design package (`revisionId`: the entry's id). */
function toDsiEntry(row: EntryFields & Pick<Selectable<DasEntriesTable>, 'id' | 'created_at'>): TDsiEntry {
  return {
    version: row.package_version,
    dsiVersion: row.dsi_version,
    dsiId: row.dsi_id,
    designName: row.design_name,
    dateCreated: row.created_at,
    publicKeySN: row.public_key_sn,
    companyName: row.company_name,
    keyRoleSN: row.key_role_sn,
    description: row.description,
    multiPlaten: row.multi_platen === 1,
    displayImage: row.display_image,
    protectUserName: row.protect_user_name,
    image_url: row.image_url,
    dsi_url: row.dsi_url,
    manage_url: row.manage_url,
    revisionId: row.id,
    digestMethod: 'SHA-256',
    digestValue: row.digest,
    signature: row.signature,
  };
}

type EntryFields = Omit<DasEntriesTable, 'id' | 'storage_key' | 'size' | 'sha256' | 'created_by' | 'created_at'>;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function invalid(description: string): AppError {
  return new AppError('dasPackageInvalid', { field: 'file', description });
}

function versionTaken(): AppError {
  return new AppError('dasEntryExists', { field: 'file' });
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'document'}: ${issue.message}` : 'not valid';
}

/**
 * The DSI entry fields of a design package file (JSON, which may start with one UTF-8 byte order
 * mark: `parseCarryableJson`). Those the manifest holds are read from it (its
 * SHA-256 must be the stated `digestValue`); the links and key serial numbers from the file.
 */
function entryFields(bytes: Buffer): EntryFields & { manage_url: string } {
  // held to what a JSON body is (one leading byte order mark skipped; NUL and the like refused,
  // naming the value), the manifest too: its values become the entry's columns
  const document = parseCarryableJson(bytes.toString('utf8'), 'file', () => invalid('The file is not JSON'));
  const parsed = ZDasPackage.safeParse(document);
  if (!parsed.success) throw invalid(issueText(parsed.error));
  const entry = parsed.data;
  if (sha256(entry.manifest) !== entry.digestValue) {
    throw invalid('The SHA-256 of the manifest is not digestValue');
  }
  const manifestDocument = parseCarryableJson(entry.manifest, 'file.manifest', () => invalid('The manifest is not JSON'));
  const manifest = ZPackageManifest.safeParse(manifestDocument);
  if (!manifest.success) throw invalid(`manifest.${issueText(manifest.error)}`);
  const { dsiId, dsiVersion, packageVersion, designName, description, companyName, multiPlaten } = manifest.data;
  if (!z.uuid().safeParse(dsiId).success) throw invalid('manifest.dsiId: not a DSI ID');
  if (!Number.isSafeInteger(dsiVersion) || dsiVersion < 1 || dsiVersion > 2_147_483_647 || packageVersion < 1) {
    throw invalid('manifest.dsiVersion: not a build number');
  }
  if (designName.length > 300 || companyName.length > 300) throw invalid('manifest: a name is longer than 300 characters');
  const manageUrl = entry.manage_url ?? manifest.data.manageUrl;
  if (
    !z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .safeParse(manageUrl).success
  )
    throw invalid('manage_url: not an http(s) URL');
  return {
    dsi_id: dsiId,
    dsi_version: dsiVersion,
    package_version: Math.min(packageVersion, 2_147_483_647),
    design_name: designName,
    description,
    company_name: companyName,
    multi_platen: multiPlaten ? 1 : 0,
    display_image: entry.displayImage ?? null,
    public_key_sn: entry.publicKeySN ?? null,
    key_role_sn: entry.keyRoleSN ?? null,
    protect_user_name: entry.protectUserName ?? null,
    image_url: entry.image_url ?? null,
    dsi_url: entry.dsi_url ?? null,
    manage_url: manageUrl,
    digest: entry.digestValue,
    signature: entry.signature,
  };
}
