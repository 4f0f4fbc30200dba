import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * Every column that holds a storage key. A table that adds one belongs here, or the storage
 * sweeper deletes its objects once they are older than the grace period. Likewise every column
 * that names an image (`images.name`) belongs in {@link removeUnusedImages}.
 */
export class StorageReferencesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Those of `keys` that some row refers to. */
  async referenced(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.references(keys).execute();
    return new Set(rows.map((row) => row.storage_key));
  }

  /** Every key some row refers to, each once (a backup checks it copied them all). */
  async *allReferenced(): AsyncIterable<string> {
    for await (const row of this.references().stream()) yield row.storage_key;
  }

  /** The storage keys the rows refer to, those of `keys` only when given. */
  private references(keys?: string[]) {
    const among = <Q extends { where(column: 'storage_key', op: 'in', values: string[]): Q }>(query: Q): Q =>
      keys ? query.where('storage_key', 'in', keys) : query;
    const db = this.db;
    return among(db.selectFrom('images').select('storage_key'))
      .union(among(db.selectFrom('package_files').select('storage_key')))
      .union(among(db.selectFrom('revision_files').select('storage_key')))
      .union(among(db.selectFrom('dtls').select('storage_key')))
      .union(among(db.selectFrom('das_entries').select('storage_key')))
      .union(among(db.selectFrom('storage_files').select('storage_key')))
      .union(among(db.selectFrom('quality_inspection_pictures').select('storage_key')))
      .union(
        among(db.selectFrom('svp_values').select((eb) => eb.fn.coalesce('storage_key', eb.val('')).as('storage_key'))).where(
          'storage_key',
          'is not',
          null,
        ),
      )
      .union(
        among(
          db.selectFrom('secure_repo_nodes').select((eb) => eb.fn.coalesce('storage_key', eb.val('')).as('storage_key')),
        ).where('storage_key', 'is not', null),
      );
  }

  /**
   * Deletes the images created before `createdBefore` that no machine, package, revision or
   * archive entry shows: a picture replaced or an owner deleted is removed after its change
   * commits, so a process that died in between left the row (and with it its object) behind.
   * An image is written in the transaction of the owner that shows it, so an old one nothing
   * shows is shown by nothing any more. Answers how many went.
   */
  async removeUnusedImages(createdBefore: string): Promise<number> {
    const result = await this.db
      .deleteFrom('images')
      .where('created_at', '<', createdBefore)
      .where(({ and, not, exists, selectFrom }) =>
        and([
          not(exists(selectFrom('devices').select('id').whereRef('devices.image', '=', 'images.name'))),
          not(exists(selectFrom('packages').select('id').whereRef('packages.display_image', '=', 'images.name'))),
          not(
            exists(selectFrom('package_revisions').select('id').whereRef('package_revisions.display_image', '=', 'images.name')),
          ),
          not(exists(selectFrom('das_entries').select('id').whereRef('das_entries.display_image', '=', 'images.name'))),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
