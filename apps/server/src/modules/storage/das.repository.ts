import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DasEntriesTable } from '../../db/schema-storage.js';

/** The design archive's uploaded entries (`das_entries`); `das/list` reads them with the built revisions. */
export class DasRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Whether the archive holds this DSI version already, built here or uploaded. */
  async versionTaken(dsiId: string, dsiVersion: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('das_entries')
      .select('id')
      .where('dsi_id', '=', dsiId)
      .where('dsi_version', '=', dsiVersion)
      .union(
        this.db
          .selectFrom('package_revisions')
          .select('id')
          .where('package_id', '=', dsiId)
          .where('dsi_version', '=', dsiVersion),
      )
      .executeTakeFirst();
    return row !== undefined;
  }

  findEntry(id: string): Promise<Selectable<DasEntriesTable> | undefined> {
    return this.db.selectFrom('das_entries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertEntry(row: Insertable<DasEntriesTable>): Promise<void> {
    await this.db.insertInto('das_entries').values(row).execute();
  }
}
