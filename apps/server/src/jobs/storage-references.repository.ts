import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * Every column that holds a storage key. A table that adds one belongs here, or the storage
 * sweeper deletes its objects once they are older than the grace period.
 */
export class StorageReferencesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Those of `keys` that some row refers to. */
  async referenced(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('images')
      .select('storage_key')
      .where('storage_key', 'in', keys)
      .union(this.db.selectFrom('package_files').select('storage_key').where('storage_key', 'in', keys))
      .union(this.db.selectFrom('revision_files').select('storage_key').where('storage_key', 'in', keys))
      .union(this.db.selectFrom('dtls').select('storage_key').where('storage_key', 'in', keys))
      .union(this.db.selectFrom('das_entries').select('storage_key').where('storage_key', 'in', keys))
      .union(this.db.selectFrom('storage_files').select('storage_key').where('storage_key', 'in', keys))
      .union(
        this.db
          .selectFrom('secure_repo_nodes')
          .select((eb) => eb.fn.coalesce('storage_key', eb.val('')).as('storage_key'))
          .where('storage_key', 'in', keys),
      )
      .execute();
    return new Set(rows.map((row) => row.storage_key));
  }
}
