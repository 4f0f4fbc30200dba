import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DtlsTable } from '../../db/schema-licensing.js';
import type { NewRevisionFileRow, PackageRow, RevisionRow } from '../../db/schema-packages.js';

/** Revisions and machine data records as they leave for a peer or arrive from one. */
export class PeerDesignsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  newestRevision(packageId: string): Promise<RevisionRow | undefined> {
    return this.db
      .selectFrom('package_revisions')
      .selectAll()
      .where('package_id', '=', packageId)
      .orderBy('dsi_version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  revision(id: string): Promise<RevisionRow | undefined> {
    return this.db.selectFrom('package_revisions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  revisionAt(packageId: string, dsiVersion: number): Promise<RevisionRow | undefined> {
    return this.db
      .selectFrom('package_revisions')
      .selectAll()
      .where('package_id', '=', packageId)
      .where('dsi_version', '=', dsiVersion)
      .executeTakeFirst();
  }

  revisionFiles(revisionId: string) {
    return this.db.selectFrom('revision_files').selectAll().where('revision_id', '=', revisionId).execute();
  }

  packageExists(id: string): Promise<{ id: string } | undefined> {
    return this.db.selectFrom('packages').select('id').where('id', '=', id).executeTakeFirst();
  }

  async insertPackage(row: PackageRow): Promise<void> {
    await this.db.insertInto('packages').values(row).execute();
  }

  async insertRevision(row: RevisionRow, files: NewRevisionFileRow[]): Promise<void> {
    await this.db.insertInto('package_revisions').values(row).execute();
    if (files.length > 0) await this.db.insertInto('revision_files').values(files).execute();
  }

  /** Whether any row still refers to a stored object (a revision file, a package file). */
  async storageKeyInUse(key: string): Promise<boolean> {
    const [revision, file] = await Promise.all([
      this.db.selectFrom('revision_files').select('revision_id').where('storage_key', '=', key).limit(1).executeTakeFirst(),
      this.db.selectFrom('package_files').select('id').where('storage_key', '=', key).limit(1).executeTakeFirst(),
    ]);
    return revision !== undefined || file !== undefined;
  }

  dtl(id: string) {
    return this.db.selectFrom('dtls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertDtl(row: Insertable<DtlsTable>): Promise<void> {
    await this.db.insertInto('dtls').values(row).execute();
  }
}
