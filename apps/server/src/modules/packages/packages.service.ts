import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type {
  TDsiEntry,
  TDsiRevision,
  TPackage,
  TPackageDetail,
  TPackageInfoRequest,
  TPackageManifest,
  TPage,
  TPageQuery,
  TWorkflowAddRequest,
  TWorkflowEditRequest,
  TWorkflowStep,
} from '@manifold/contract';
import { describeCertificate } from '../../crypto/certificates.js';
import { signJsonDetached } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ImageRow, NewRevisionFileRow, PackageRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { canonicalize, canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { decodeImageDataUrl, storeImage } from '../images/images.js';
import { ImagesRepository } from '../images/images.repository.js';
import type { DesignKeys } from './design-keys.port.js';
import { DeviceTemplatesRepository, toTemplate } from './device-templates.repository.js';
import { PackagesRepository, toDsiEntry, toPackage, type RevisionLinks } from './packages.repository.js';

/**
 * Design packages: details with optimistic versioning, workflow steps, deletion guarded by the
 * references other features register, and builds that freeze a package into a signed revision.
 */
export class PackagesService {
  private readonly links: RevisionLinks;

  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly keys: DesignKeys,
    publicUrl: string,
  ) {
    this.links = { publicUrl };
  }

  private packages(db: Kysely<DB> = this.database.db): PackagesRepository {
    return new PackagesRepository(db);
  }

  private audit(db: Kysely<DB>): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }

  list(page: TPageQuery, name: string | undefined): Promise<TPage<TPackage>> {
    return this.packages().listPackages(page, name);
  }

  async fetch(dsiId: string): Promise<TPackageDetail> {
    const packages = this.packages();
    const pkg = await packages.getPackage(dsiId);
    if (!pkg) throw new AppError('packageNotPresent', { field: 'dsiId' });
    const [steps, files, templates, revisions] = await Promise.all([
      packages.steps(dsiId),
      packages.files(dsiId),
      new DeviceTemplatesRepository(this.database.db).ofPackage(dsiId),
      packages.revisions(dsiId, this.links),
    ]);
    return { ...pkg, steps, files, deviceTemplates: templates.map(toTemplate), revisions };
  }

  /** Creates a package (no dsiId) or updates one (dsiId and the version read). */
  async saveInfo(input: TPackageInfoRequest, caller: Caller): Promise<TPackage> {
    return input.dsiId === undefined ? this.create(input, caller) : this.update({ ...input, dsiId: input.dsiId }, caller);
  }

  private async create(input: TPackageInfoRequest, caller: Caller): Promise<TPackage> {
    const designName = input.designName?.trim() ?? '';
    if (!designName) throw new AppError('packageDesignNameEmpty', { field: 'designName' });
    const image = input.displayImage ? await this.newDisplayImage(input.displayImage, null) : undefined;
    const now = isoNow();
    const row: PackageRow = {
      id: randomUUID(),
      design_name: designName,
      description: input.description?.trim() ?? '',
      company_name: input.companyName?.trim() ?? caller.user.company ?? '',
      multi_platen: input.multiPlaten ? 1 : 0,
      display_image: image?.name ?? null,
      version: 1,
      created_by: caller.username,
      created_at: now,
      updated_at: now,
    };
    await this.withImage(image, () =>
      this.database.transaction(async (trx) => {
        if (image) await new ImagesRepository(trx).insert(image);
        await this.packages(trx).insertPackage(row);
        await this.audit(trx).recordBy(caller, 'designPackageCreated', row.id, { designName });
      }),
    );
    return toPackage(row, null);
  }

  private async update(input: TPackageInfoRequest & { dsiId: string }, caller: Caller): Promise<TPackage> {
    if (input.version === undefined) throw new AppError('packageVersionRequired', { field: 'version' });
    const designName = input.designName?.trim();
    if (designName !== undefined && !designName) throw new AppError('packageDesignNameEmpty', { field: 'designName' });
    const current = await this.packages().findPackage(input.dsiId);
    if (!current) throw new AppError('packageNotPresent', { field: 'dsiId' });
    if (current.version !== input.version) throw new AppError('packageVersionConflict', { field: 'version' });

    const imageChange = input.displayImage !== undefined && input.displayImage !== current.display_image;
    const image =
      imageChange && input.displayImage ? await this.newDisplayImage(input.displayImage, current.display_image) : undefined;
    const changes: Partial<PackageRow> = {
      ...(designName !== undefined ? { design_name: designName } : {}),
      ...(input.description !== undefined ? { description: input.description.trim() } : {}),
      ...(input.companyName !== undefined ? { company_name: input.companyName.trim() } : {}),
      ...(input.multiPlaten !== undefined ? { multi_platen: input.multiPlaten ? 1 : 0 } : {}),
      ...(imageChange ? { display_image: image?.name ?? null } : {}),
      updated_at: isoNow(),
    };
    await this.withImage(image, () =>
      this.database.transaction(async (trx) => {
        if (image) await new ImagesRepository(trx).insert(image);
        const updated = await this.packages(trx).updatePackageIfVersion(input.dsiId, input.version!, changes);
        if (!updated) {
          const exists = await this.packages(trx).findPackage(input.dsiId);
          throw new AppError(exists ? 'packageVersionConflict' : 'packageNotPresent', { field: exists ? 'version' : 'dsiId' });
        }
        await this.audit(trx).recordBy(caller, 'designPackageEdited', input.dsiId, {
          fields: Object.keys(changes).filter((key) => key !== 'updated_at'),
          version: input.version! + 1,
        });
      }),
    );
    if (imageChange && current.display_image) await this.removeImageIfUnused(current.display_image);
    return (await this.packages().getPackage(input.dsiId))!;
  }

  /**
   * Deletes a package with its steps, files, templates and revisions, unless another feature has
   * registered a live reference to it (orders: `entity_references` rows of target kind `package`).
   */
  async delete(input: { dsiId: string }, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<void> {
    const removed = await this.database.transaction(async (trx) => {
      const packages = this.packages(trx);
      const pkg = await this.lockedPackage(trx, input.dsiId);
      if ((await packages.countPackageReferences(pkg.id)) > 0)
        throw new AppError('packageReferencedByOrders', { field: 'dsiId' });
      const keys = await packages.storageKeysOfPackage(pkg.id);
      const images = await packages.revisionImages(pkg.id);
      await packages.deletePackage(pkg.id);
      await this.audit(trx).recordBy(caller, 'designPackageDeleted', pkg.id, { designName: pkg.design_name });
      const imageNames = [pkg.display_image, ...images].filter((name): name is string => name !== null);
      return { keys, images: [...new Set(imageNames)] };
    });
    for (const key of removed.keys) await this.storage.delete(key);
    for (const name of removed.images) await this.removeImageIfUnused(name);
  }

  // workflow steps

  async addStep(input: TWorkflowAddRequest, caller: Caller): Promise<TWorkflowStep> {
    return this.database.transaction(async (trx) => {
      const packages = this.packages(trx);
      await this.lockedPackage(trx, input.dsiId);
      const fields = await this.stepFields(trx, input.dsiId, input.type, input.instructions, input.deviceTemplateId ?? null);
      const now = isoNow();
      const id = randomUUID();
      await packages.insertStep({
        id,
        package_id: input.dsiId,
        position: await packages.nextStepPosition(input.dsiId),
        step_type: input.type,
        name: input.name?.trim() ?? '',
        instructions: fields.instructions,
        device_template_id: fields.deviceTemplateId,
        created_at: now,
        updated_at: now,
      });
      await this.audit(trx).recordBy(caller, 'designPackageWorkflowChanged', input.dsiId, { added: id, type: input.type });
      return this.step(trx, input.dsiId, id);
    });
  }

  async editStep(input: TWorkflowEditRequest, caller: Caller): Promise<TWorkflowStep> {
    return this.database.transaction(async (trx) => {
      await this.lockedPackage(trx, input.dsiId);
      const packages = this.packages(trx);
      const current = await packages.findStep(input.dsiId, input.workflowStepId);
      if (!current) throw new AppError('workflowStepNotPresent', { field: 'workflowStepId' });
      const type = input.type ?? (current.step_type as TWorkflowEditRequest['type'] & string);
      const fields = await this.stepFields(
        trx,
        input.dsiId,
        type,
        input.instructions ?? current.instructions,
        input.deviceTemplateId === undefined ? current.device_template_id : input.deviceTemplateId,
      );
      await packages.updateStep(current.id, {
        step_type: type,
        name: input.name !== undefined ? input.name.trim() : current.name,
        instructions: fields.instructions,
        device_template_id: fields.deviceTemplateId,
        updated_at: isoNow(),
      });
      await this.audit(trx).recordBy(caller, 'designPackageWorkflowChanged', input.dsiId, { edited: current.id });
      return this.step(trx, input.dsiId, current.id);
    });
  }

  async deleteStep(input: { dsiId: string; workflowStepId: string }, caller: Caller): Promise<TWorkflowStep[]> {
    return this.database.transaction(async (trx) => {
      await this.lockedPackage(trx, input.dsiId);
      const packages = this.packages(trx);
      const current = await packages.findStep(input.dsiId, input.workflowStepId);
      if (!current) throw new AppError('workflowStepNotPresent', { field: 'workflowStepId' });
      await packages.deleteStep(current.id);
      const remaining = await packages.steps(input.dsiId);
      await packages.setStepPositions(
        input.dsiId,
        remaining.map((step) => step.workflowStepId),
      );
      await this.audit(trx).recordBy(caller, 'designPackageWorkflowChanged', input.dsiId, { deleted: current.id });
      return packages.steps(input.dsiId);
    });
  }

  /** `stepIds` must name every step of the package exactly once (`workflowStepIdsMismatch`). */
  async reorderSteps(input: { dsiId: string; stepIds: string[] }, caller: Caller): Promise<TWorkflowStep[]> {
    return this.database.transaction(async (trx) => {
      await this.lockedPackage(trx, input.dsiId);
      const packages = this.packages(trx);
      const current = (await packages.steps(input.dsiId)).map((step) => step.workflowStepId);
      const wanted = new Set(input.stepIds);
      const exact =
        wanted.size === input.stepIds.length && wanted.size === current.length && current.every((id) => wanted.has(id));
      if (!exact) {
        const missing = current.filter((id) => !wanted.has(id));
        const unknown = input.stepIds.filter((id) => !current.includes(id));
        const repeated = input.stepIds.length !== wanted.size;
        const reasons = [
          missing.length ? `missing ${missing.join(', ')}` : '',
          unknown.length ? `not steps of this package: ${unknown.join(', ')}` : '',
          repeated ? 'a step is named twice' : '',
        ].filter(Boolean);
        throw new AppError('workflowStepIdsMismatch', {
          field: 'stepIds',
          description: `The list must name every step of the package exactly once: ${reasons.join('; ')}`,
        });
      }
      await packages.setStepPositions(input.dsiId, input.stepIds);
      await this.audit(trx).recordBy(caller, 'designPackageWorkflowChanged', input.dsiId, { reordered: input.stepIds });
      return packages.steps(input.dsiId);
    });
  }

  // builds

  /**
   * Freezes the package into a new revision: a canonical JSON manifest of its details, files
   * (name, size, SHA-256, privacy), steps and the templates they apply (and those attached),
   * its SHA-256, and a detached JWS of it with the server signing key. The stored objects the
   * files point at are recorded with the revision and kept while it exists.
   */
  async build(input: { dsiId: string }, caller: Caller): Promise<TDsiEntry> {
    // Read before the transaction: SQLite has one connection, and the credentials are read outside it.
    const signing = await this.keys.signingIdentity();
    return this.database.transaction(async (trx) => {
      const pkg = await this.lockedPackage(trx, input.dsiId);
      const packages = this.packages(trx);
      const templatesRepository = new DeviceTemplatesRepository(trx);
      const [files, steps, attached] = await Promise.all([
        packages.fileRows(pkg.id),
        packages.steps(pkg.id),
        templatesRepository.ofPackage(pkg.id),
      ]);
      if (files.length === 0) throw new AppError('packageHasNoFiles', { field: 'dsiId' });
      const stepTemplateIds = steps.map((step) => step.deviceTemplateId).filter((id): id is string => id !== null);
      const extra = await templatesRepository.findMany(stepTemplateIds.filter((id) => !attached.some((row) => row.id === id)));
      const templates = [...attached, ...extra].sort((a, b) => a.id.localeCompare(b.id));

      const revisionId = randomUUID();
      const dsiVersion = ((await packages.latestDsiVersion(pkg.id)) ?? 0) + 1;
      const now = isoNow();
      const manifest: TPackageManifest = canonicalize({
        manifestVersion: 1,
        dsiId: pkg.id,
        dsiVersion,
        packageVersion: pkg.version,
        designName: pkg.design_name,
        description: pkg.description,
        companyName: pkg.company_name,
        multiPlaten: pkg.multi_platen === 1,
        dateCreated: now,
        manageUrl: this.links.publicUrl,
        files: files.map((file) => ({
          fileId: file.id,
          fileName: file.file_name,
          contentType: file.content_type,
          size: Number(file.size),
          sha256: file.sha256,
          isPublic: file.is_public === 1,
        })),
        steps: steps.map((step) => ({
          workflowStepId: step.workflowStepId,
          position: step.position,
          type: step.type,
          name: step.name,
          instructions: step.instructions,
          deviceTemplateId: step.deviceTemplateId,
        })),
        deviceTemplates: templates.map((row) => ({
          deviceTemplateId: row.id,
          sha256: row.sha256,
          document: JSON.parse(row.document) as unknown,
        })),
      } satisfies TPackageManifest);
      const { body, jws } = await signJsonDetached(manifest, signing.privateKeyPem, { certificatePem: signing.certificatePem });
      if (body !== canonicalJson(manifest)) throw new Error('the signed manifest bytes are not its canonical JSON');
      const revision = {
        id: revisionId,
        package_id: pkg.id,
        dsi_version: dsiVersion,
        package_version: pkg.version,
        design_name: pkg.design_name,
        description: pkg.description,
        company_name: pkg.company_name,
        multi_platen: pkg.multi_platen,
        display_image: pkg.display_image,
        manifest: body,
        digest: createHash('sha256').update(body).digest('hex'),
        signature: jws,
        public_key_sn: describeCertificate(signing.certificatePem).serialNumber,
        created_by: caller.username,
        created_at: now,
        signer_certificate: null,
      };
      const frozen: NewRevisionFileRow[] = files.map((file) => ({
        revision_id: revisionId,
        file_id: file.id,
        file_name: file.file_name,
        content_type: file.content_type,
        size: Number(file.size),
        sha256: file.sha256,
        is_public: file.is_public,
        storage_key: file.storage_key,
        wrapped_key: file.wrapped_key,
      }));
      await packages.insertRevision(revision, frozen);
      await this.audit(trx).recordBy(caller, 'designPackageBuilt', pkg.id, { revisionId, dsiVersion, digest: revision.digest });
      return toDsiEntry(revision, this.links);
    });
  }

  listRevisions(page: TPageQuery, dsiId: string | undefined): Promise<TPage<TDsiEntry>> {
    return this.packages().listRevisions(page, dsiId, this.links);
  }

  async fetchRevision(revisionId: string): Promise<TDsiRevision> {
    const row = await this.packages().findRevision(revisionId);
    if (!row) throw new AppError('entityDoesNotExist', { field: 'revisionId' });
    return { ...toDsiEntry(row, this.links), manifest: row.manifest };
  }

  // helpers

  private async lockedPackage(trx: Kysely<DB>, dsiId: string): Promise<PackageRow> {
    const pkg = await this.packages(trx).lockPackage(dsiId, this.database.dialect);
    if (!pkg) throw new AppError('packageNotPresent', { field: 'dsiId' });
    return pkg;
  }

  private async step(trx: Kysely<DB>, dsiId: string, id: string): Promise<TWorkflowStep> {
    const steps = await this.packages(trx).steps(dsiId);
    return steps.find((step) => step.workflowStepId === id)!;
  }

  /** `manual` needs instructions and no template; `device` a template of the library or this package. */
  private async stepFields(
    trx: Kysely<DB>,
    dsiId: string,
    type: 'manual' | 'device',
    instructions: string | undefined,
    deviceTemplateId: string | null,
  ): Promise<{ instructions: string; deviceTemplateId: string | null }> {
    const text = instructions?.trim() ?? '';
    if (type === 'manual') {
      if (!text) throw new AppError('workflowStepInstructionsEmpty', { field: 'instructions' });
      return { instructions: text, deviceTemplateId: null };
    }
    if (!deviceTemplateId) throw new AppError('workflowStepDeviceTemplateRequired', { field: 'deviceTemplateId' });
    // locked until the step is written: a delete of the template waits for it, or it for the delete
    const template = await new DeviceTemplatesRepository(trx).lock(deviceTemplateId, this.database.dialect);
    if (!template || (template.package_id !== null && template.package_id !== dsiId)) {
      throw new AppError('deviceTemplateNotPresent', { field: 'deviceTemplateId' });
    }
    return { instructions: text, deviceTemplateId };
  }

  /** A data URL becomes a stored image; anything else is refused (the current name never reaches here). */
  private async newDisplayImage(value: string, current: string | null): Promise<ImageRow> {
    const bytes = decodeImageDataUrl(value);
    if (!bytes || value === current) throw new AppError('packageDisplayImageInvalid', { field: 'displayImage' });
    return storeImage(this.storage, bytes, 'package', undefined, 'displayImage');
  }

  private async withImage<T>(image: ImageRow | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (image) await this.storage.delete(image.storage_key);
      throw error;
    }
  }

  private async removeImageIfUnused(name: string): Promise<void> {
    if (await this.packages().imageInUse(name)) return;
    const images = new ImagesRepository(this.database.db);
    const image = await images.find(name);
    if (!image) return;
    await images.delete(name);
    await this.storage.delete(image.storage_key);
  }
}
