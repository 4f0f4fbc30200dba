import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TDeviceTemplate, TDeviceTemplateDetail, TPage, TPageQuery } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { DeviceTemplateRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { parseTemplateDocument } from './device-parameters.js';
import { DeviceTemplatesRepository, toTemplate, toTemplateDetail } from './device-templates.repository.js';
import { PackagesRepository } from './packages.repository.js';

/** Largest template file accepted (JSON). */
export const TEMPLATE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Device templates: imported from JSON files (format and JSON Schema in `contract`), kept as
 * their canonical JSON with its SHA-256, either in the library (no package) or attached to one
 * package. `device` workflow steps apply them; builds freeze them into the manifest.
 */
export class DeviceTemplatesService {
  constructor(private readonly database: Database) {}

  private templates(db: Kysely<DB> = this.database.db): DeviceTemplatesRepository {
    return new DeviceTemplatesRepository(db);
  }

  list(page: TPageQuery, filter: { dsiId?: string | undefined; name?: string | undefined }): Promise<TPage<TDeviceTemplate>> {
    return this.templates().list(page, { packageId: filter.dsiId, name: filter.name });
  }

  async fetch(id: string): Promise<TDeviceTemplateDetail> {
    const row = await this.templates().find(id);
    if (!row) throw new AppError('deviceTemplateNotPresent', { field: 'deviceTemplateId' });
    return toTemplateDetail(row);
  }

  async import(input: { file: Buffer; dsiId: string | undefined }, caller: Caller): Promise<TDeviceTemplate> {
    const document = parseTemplateDocument(input.file);
    const canonical = canonicalJson(document);
    const row: DeviceTemplateRow = {
      id: randomUUID(),
      package_id: input.dsiId ?? null,
      name: document.name,
      description: document.description ?? null,
      target: document.target ? canonicalJson(document.target) : null,
      parameter_version: document.parameterVersion ?? null,
      parameter_count: document.parameters.length,
      document: canonical,
      sha256: createHash('sha256').update(canonical).digest('hex'),
      created_by: caller.username,
      created_at: isoNow(),
    };
    return this.database.transaction(async (trx) => {
      // locked, as a step add does: a package deleted meanwhile is answered, not a foreign key error
      if (input.dsiId && !(await new PackagesRepository(trx).lockPackage(input.dsiId, this.database.dialect))) {
        throw new AppError('packageNotPresent', { field: 'dsiId' });
      }
      await this.templates(trx).insert(row);
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'deviceTemplateImported', row.name, {
        deviceTemplateId: row.id,
        dsiId: row.package_id,
        sha256: row.sha256,
      });
      return toTemplate(row);
    });
  }

  async delete(input: { deviceTemplateId: string }, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const templates = this.templates(trx);
      // locked before the steps are counted: a step added or edited to name the template waits
      // for the delete (and then finds no template), or the delete waits for it (and counts it)
      const row = await templates.lock(input.deviceTemplateId, this.database.dialect);
      if (!row) throw new AppError('deviceTemplateNotPresent', { field: 'deviceTemplateId' });
      if ((await templates.stepsUsing(row.id)) > 0) throw new AppError('deviceTemplateInUse', { field: 'deviceTemplateId' });
      await templates.delete(row.id);
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'deviceTemplateDeleted', row.name, {
        deviceTemplateId: row.id,
      });
    });
  }
}
