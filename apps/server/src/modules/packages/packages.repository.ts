import { MysqlAdapter, sql, type Kysely } from 'kysely';
import type { TDsiEntry, TPackage, TPackageFile, TPage, TPageQuery, TWorkflowStep, TWorkflowStepType } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import { paginate } from '../../db/paging.js';
import { nextVersion } from '../../db/version.js';
import type { DB } from '../../db/schema.js';
import type {
  NewPackageFileRow,
  NewRevisionFileRow,
  PackageFileRow,
  PackageRow,
  RevisionRow,
  WorkflowStepRow,
} from '../../db/schema-packages.js';
import { isoNow } from '../../lib/time.js';
import { parseClassification } from '../access-control/classification.js';

export interface RevisionLinks {
  /** This instance's canonical address (`PUBLIC_URL`). */
  publicUrl: string;
}

/** Queries of packages, their steps, files and revisions. Mapping to the spec's names happens here. */
export class PackagesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  // packages

  findPackage(id: string): Promise<PackageRow | undefined> {
    return this.db.selectFrom('packages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getPackage(id: string): Promise<TPackage | undefined> {
    const row = await this.findPackage(id);
    if (!row) return undefined;
    return toPackage(row, await this.latestDsiVersion(id));
  }

  async listPackages(page: TPageQuery, name: string | undefined): Promise<TPage<TPackage>> {
    const term = name?.trim();
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['packages', term ?? '']),
        tables: ['packages'],
        readByKey: true,
        ...(term ? { search: { columns: ['packages.design_name'], term } } : { counted: [WHOLE_TABLE] }),
      },
      this.db.selectFrom('packages'),
      // case-insensitive name order over an index: lower() has one on SQLite and PostgreSQL
      // (migration 033); MariaDB compares names case-insensitively itself, over packages_name_idx
      {
        value:
          this.db.getExecutor().adapter instanceof MysqlAdapter
            ? sql.ref('packages.design_name')
            : sql`lower(packages.design_name)`,
        id: sql.ref('packages.id'),
        direction: 'asc',
        computed: true,
      },
      page,
      (base) =>
        base.selectAll('packages').select((eb) =>
          eb
            .selectFrom('package_revisions')
            .select((inner) => inner.fn.max('package_revisions.dsi_version').as('v'))
            .whereRef('package_revisions.package_id', '=', 'packages.id')
            .as('latest_dsi_version'),
        ),
      (rows) => rows.map((row) => toPackage(row, row.latest_dsi_version === null ? null : Number(row.latest_dsi_version))),
    );
  }

  async insertPackage(row: PackageRow): Promise<void> {
    await this.db.insertInto('packages').values(row).execute();
  }

  /** Updates only when the stored version is `expectedVersion`; answers whether it did. */
  async updatePackageIfVersion(
    id: string,
    expectedVersion: number,
    changes: Partial<Omit<PackageRow, 'id' | 'version'>>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('packages')
      .set({ ...changes, version: nextVersion() })
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Sets the display image of a package that has none (not a user edit: the version stays). */
  async setDisplayImageIfNone(id: string, image: string): Promise<boolean> {
    const result = await this.db
      .updateTable('packages')
      .set({ display_image: image, updated_at: isoNow() })
      .where('id', '=', id)
      .where('display_image', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Whether a revision or a package other than `exceptPackageId` shows the image. */
  async imageInUse(name: string, exceptPackageId?: string): Promise<boolean> {
    let packages = this.db.selectFrom('packages').select('id').where('display_image', '=', name);
    if (exceptPackageId) packages = packages.where('id', '<>', exceptPackageId);
    const [pkg, revision] = await Promise.all([
      packages.executeTakeFirst(),
      this.db.selectFrom('package_revisions').select('id').where('display_image', '=', name).executeTakeFirst(),
    ]);
    return pkg !== undefined || revision !== undefined;
  }

  /** Deletes the package with its workflow steps and its own device templates. */
  async deletePackage(id: string): Promise<void> {
    await this.db.deleteFrom('workflow_steps').where('package_id', '=', id).execute();
    await this.db.deleteFrom('device_templates').where('package_id', '=', id).execute();
    await this.db.deleteFrom('packages').where('id', '=', id).execute();
  }

  /** The display images of the package's revisions. */
  async revisionImages(packageId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('package_revisions')
      .select('display_image')
      .where('package_id', '=', packageId)
      .where('display_image', 'is not', null)
      .execute();
    return rows.map((row) => row.display_image).filter((name): name is string => name !== null);
  }

  /** Live references by other features (orders) to the package: see `entity_references`. */
  async countPackageReferences(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('entity_references')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('target_kind', '=', 'package')
      .where('target_id', '=', id)
      .where('released_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  // workflow steps

  async steps(packageId: string): Promise<TWorkflowStep[]> {
    const rows = await this.db
      .selectFrom('workflow_steps')
      .selectAll()
      .where('package_id', '=', packageId)
      .orderBy('position')
      .orderBy('id')
      .execute();
    return rows.map(toStep);
  }

  findStep(packageId: string, stepId: string): Promise<WorkflowStepRow | undefined> {
    return this.db
      .selectFrom('workflow_steps')
      .selectAll()
      .where('package_id', '=', packageId)
      .where('id', '=', stepId)
      .executeTakeFirst();
  }

  async nextStepPosition(packageId: string): Promise<number> {
    const row = await this.db
      .selectFrom('workflow_steps')
      .select((eb) => eb.fn.max('position').as('p'))
      .where('package_id', '=', packageId)
      .executeTakeFirst();
    return Number(row?.p ?? 0) + 1;
  }

  async insertStep(row: WorkflowStepRow): Promise<void> {
    await this.db.insertInto('workflow_steps').values(row).execute();
  }

  async updateStep(id: string, changes: Partial<Omit<WorkflowStepRow, 'id' | 'package_id'>>): Promise<void> {
    await this.db.updateTable('workflow_steps').set(changes).where('id', '=', id).execute();
  }

  async deleteStep(id: string): Promise<void> {
    await this.db.deleteFrom('workflow_steps').where('id', '=', id).execute();
  }

  /** Renumbers the steps 1..n in the given order. */
  async setStepPositions(packageId: string, orderedIds: string[]): Promise<void> {
    const now = isoNow();
    for (const [index, id] of orderedIds.entries()) {
      await this.db
        .updateTable('workflow_steps')
        .set({ position: index + 1, updated_at: now })
        .where('package_id', '=', packageId)
        .where('id', '=', id)
        .execute();
    }
  }

  /** The package, locked until the transaction ends (PostgreSQL and MariaDB; SQLite has one writer). */
  async lockPackage(id: string, dialect: Pick<Dialect, 'forUpdate'>): Promise<PackageRow | undefined> {
    return dialect.forUpdate(this.db.selectFrom('packages').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  // files

  async files(packageId: string): Promise<TPackageFile[]> {
    return (await this.fileRows(packageId)).map(toFile);
  }

  fileRows(packageId: string): Promise<PackageFileRow[]> {
    return this.db
      .selectFrom('package_files')
      .selectAll()
      .where('package_id', '=', packageId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  findFile(id: string): Promise<PackageFileRow | undefined> {
    return this.db.selectFrom('package_files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertFile(row: NewPackageFileRow): Promise<void> {
    await this.db.insertInto('package_files').values(row).execute();
  }

  /** Swaps the stored object of a file only if it still is `expectedKey` (a concurrent switch loses). */
  async replaceFileObject(
    id: string,
    expectedKey: string,
    changes: Pick<NewPackageFileRow, 'storage_key' | 'stored_size' | 'wrapped_key' | 'is_public' | 'updated_at'>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('package_files')
      .set(changes)
      .where('id', '=', id)
      .where('storage_key', '=', expectedKey)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteFile(id: string): Promise<void> {
    await this.db.deleteFrom('package_files').where('id', '=', id).execute();
  }

  /** Whether a stored object is still named by a file or a revision (then it must stay). */
  async storageKeyInUse(key: string): Promise<boolean> {
    const [file, revision] = await Promise.all([
      this.db.selectFrom('package_files').select('id').where('storage_key', '=', key).executeTakeFirst(),
      this.db.selectFrom('revision_files').select('file_id').where('storage_key', '=', key).executeTakeFirst(),
    ]);
    return file !== undefined || revision !== undefined;
  }

  /** Every stored object of a package's files and revisions (to remove after the package is deleted). */
  async storageKeysOfPackage(packageId: string): Promise<string[]> {
    const [files, revisions] = await Promise.all([
      this.db.selectFrom('package_files').select('storage_key').where('package_id', '=', packageId).execute(),
      this.db
        .selectFrom('revision_files')
        .innerJoin('package_revisions', 'package_revisions.id', 'revision_files.revision_id')
        .select('revision_files.storage_key')
        .where('package_revisions.package_id', '=', packageId)
        .execute(),
    ]);
    return [...new Set([...files, ...revisions].map((row) => row.storage_key))];
  }

  // revisions

  async latestDsiVersion(packageId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('package_revisions')
      .select((eb) => eb.fn.max('dsi_version').as('v'))
      .where('package_id', '=', packageId)
      .executeTakeFirst();
    return row?.v === null || row?.v === undefined ? null : Number(row.v);
  }

  async insertRevision(row: RevisionRow, files: NewRevisionFileRow[]): Promise<void> {
    await this.db.insertInto('package_revisions').values(row).execute();
    if (files.length > 0) await this.db.insertInto('revision_files').values(files).execute();
  }

  findRevision(id: string): Promise<RevisionRow | undefined> {
    return this.db.selectFrom('package_revisions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async revisions(packageId: string, links: RevisionLinks): Promise<TDsiEntry[]> {
    const rows = await this.db
      .selectFrom('package_revisions')
      .selectAll()
      .where('package_id', '=', packageId)
      .orderBy('dsi_version', 'desc')
      .execute();
    return rows.map((row) => toDsiEntry(row, links));
  }

  /**
   * The design archive (`das/list`): the revisions built here and the design packages uploaded
   * into it (`das/upload`, table `das_entries`), newest first.
   */
  async listRevisions(page: TPageQuery, packageId: string | undefined, links: RevisionLinks): Promise<TPage<TDsiEntry>> {
    const none = sql<string | null>`null`;
    // the columns both tables name alike
    const common = [
      'id',
      'dsi_version',
      'package_version',
      'design_name',
      'description',
      'company_name',
      'multi_platen',
      'display_image',
      'public_key_sn',
      'digest',
      'signature',
      'created_at',
    ] as const;
    const built = this.db
      .selectFrom('package_revisions')
      .select([...common, 'package_id'])
      .select([
        none.as('key_role_sn'),
        none.as('protect_user_name'),
        none.as('image_url'),
        none.as('dsi_url'),
        none.as('manage_url'),
        sql<number>`0`.as('uploaded'),
      ]);
    const uploaded = this.db
      .selectFrom('das_entries')
      .select([...common, 'dsi_id as package_id'])
      .select(['key_role_sn', 'protect_user_name', 'image_url', 'dsi_url', 'manage_url', sql<number>`1`.as('uploaded')]);
    let query = this.db.selectFrom(built.unionAll(uploaded).as('archive'));
    if (packageId) query = query.where('archive.package_id', '=', packageId);
    return paginate(
      query,
      page,
      (base) => base.selectAll().orderBy('archive.created_at', 'desc').orderBy('archive.id'),
      (rows) =>
        rows.map((row): TDsiEntry => {
          const entry = toDsiEntry(row, links);
          if (Number(row.uploaded) !== 1) return entry;
          return {
            ...entry,
            keyRoleSN: row.key_role_sn,
            protectUserName: row.protect_user_name,
            image_url: row.image_url,
            dsi_url: row.dsi_url,
            manage_url: row.manage_url ?? links.publicUrl,
          };
        }),
    );
  }
}

export function toPackage(row: PackageRow, latestDsiVersion: number | null): TPackage {
  return {
    dsiId: row.id,
    designName: row.design_name,
    description: row.description,
    companyName: row.company_name,
    multiPlaten: row.multi_platen === 1,
    displayImage: row.display_image,
    version: row.version,
    dateCreated: row.created_at,
    dateModified: row.updated_at,
    createdBy: row.created_by,
    latestDsiVersion,
  };
}

function toStep(row: WorkflowStepRow): TWorkflowStep {
  return {
    workflowStepId: row.id,
    dsiId: row.package_id,
    position: row.position,
    type: row.step_type as TWorkflowStepType,
    name: row.name,
    instructions: row.instructions,
    deviceTemplateId: row.device_template_id,
  };
}

export function toFile(row: PackageFileRow): TPackageFile {
  return {
    fileId: row.id,
    dsiId: row.package_id,
    fileName: row.file_name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    isPublic: row.is_public === 1,
    classification: parseClassification(row.classification),
    dateCreated: row.created_at,
    dateModified: row.updated_at,
    createdBy: row.created_by,
  };
}

export function packageImageUrl(publicUrl: string, image: string | null): string | null {
  return image ? `${publicUrl}/ui/package/image/${image}` : null;
}

export function toDsiEntry(
  row: Omit<RevisionRow, 'manifest' | 'created_by' | 'signer_certificate'>,
  links: RevisionLinks,
): TDsiEntry {
  return {
    version: row.package_version,
    dsiVersion: row.dsi_version,
    dsiId: row.package_id,
    designName: row.design_name,
    dateCreated: row.created_at,
    publicKeySN: row.public_key_sn,
    companyName: row.company_name,
    keyRoleSN: null,
    description: row.description,
    multiPlaten: row.multi_platen === 1,
    displayImage: row.display_image,
    protectUserName: null,
    image_url: packageImageUrl(links.publicUrl, row.display_image),
    dsi_url: null,
    manage_url: links.publicUrl,
    revisionId: row.id,
    digestMethod: 'SHA-256',
    digestValue: row.digest,
    signature: row.signature,
  };
}
