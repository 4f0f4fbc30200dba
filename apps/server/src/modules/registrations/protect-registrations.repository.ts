import type { Kysely, Selectable } from 'kysely';
import type { TPage, TPageQuery, TRegistrationState } from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { ProtectRegistrationsTable } from '../../db/schema-peers.js';

export type ProtectRegistrationRow = Selectable<ProtectRegistrationsTable>;

export class ProtectRegistrationsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(row: ProtectRegistrationRow): Promise<void> {
    await this.db.insertInto('protect_registrations').values(row).execute();
  }

  find(id: string): Promise<ProtectRegistrationRow | undefined> {
    return this.db.selectFrom('protect_registrations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByToken1(token1: string): Promise<ProtectRegistrationRow | undefined> {
    return this.db.selectFrom('protect_registrations').selectAll().where('token1', '=', token1).executeTakeFirst();
  }

  /** Fills in a token pair's registration once; false when it was used already. */
  async register(
    id: string,
    values: { name: string; signing_certificate: string; encryption_certificate: string },
    now: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('protect_registrations')
      .set((eb) => ({ ...values, updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('signing_certificate', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async changeState(id: string, from: string, to: TRegistrationState, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('protect_registrations')
      .set((eb) => ({ registration_state: to, updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('registration_state', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('protect_registrations').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  list<T>(page: TPageQuery, view: (row: ProtectRegistrationRow) => T): Promise<TPage<T>> {
    return paginate(
      this.db.selectFrom('protect_registrations'),
      page,
      (base) => base.selectAll().orderBy('created_at', 'desc').orderBy('id'),
      (rows) => rows.map(view),
    );
  }
}
