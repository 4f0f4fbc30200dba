import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ImageRow } from '../../db/schema-packages.js';

/**
 * Stored pictures of packages and machines. The bytes go to storage under a generated key; the
 * row's generated name is what clients see and ask for.
 */
export class ImagesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  find(name: string): Promise<ImageRow | undefined> {
    return this.db.selectFrom('images').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async insert(row: ImageRow): Promise<void> {
    await this.db.insertInto('images').values(row).execute();
  }

  async delete(name: string): Promise<void> {
    await this.db.deleteFrom('images').where('name', '=', name).execute();
  }
}
