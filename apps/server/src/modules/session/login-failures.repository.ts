import type { Kysely, Selectable } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type { DB, LoginFailuresTable } from '../../db/schema.js';

export type LoginFailureRow = Selectable<LoginFailuresTable>;

/** Failed-login counters per key (`user:<name>`, `ip:<address>`), shared by every instance. */
export class LoginFailuresRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  ofKeys(keys: string[]): Promise<LoginFailureRow[]> {
    return this.db.selectFrom('login_failures').selectAll().where('key', 'in', keys).execute();
  }

  /** The counter of one key, locked until the transaction ends. */
  lock(key: string): Promise<LoginFailureRow | undefined> {
    return this.dialect.forUpdate(this.db.selectFrom('login_failures').selectAll().where('key', '=', key)).executeTakeFirst();
  }

  async insert(row: LoginFailureRow): Promise<void> {
    await this.db.insertInto('login_failures').values(row).execute();
  }

  async update(key: string, changes: Omit<LoginFailureRow, 'key'>): Promise<void> {
    await this.db.updateTable('login_failures').set(changes).where('key', '=', key).execute();
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('key', '=', key).execute();
  }
}
