import type { Kysely } from 'kysely';
import type { TPage, TPageQuery, TRegistrationState } from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';

/**
 * Peer registrations: rows of `manage_instances`, whose `manage_type` is how this instance holds
 * the peer — `upStreamManage`, `downStreamManage` or `trace` (spec §3 lists the peer kinds as
 * Manage instance types).
 */
export class PeerRegistrationsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** A registration of one of these types. */
  find(id: string, types: readonly string[]): Promise<ManageInstanceRow | undefined> {
    return this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('id', '=', id)
      .where('manage_type', 'in', types)
      .executeTakeFirst();
  }

  /** A registration of one of these types, locked until the transaction ends (PostgreSQL and MariaDB; SQLite has one writer). */
  lock(id: string, types: readonly string[], dialect: Pick<Dialect, 'forUpdate'>): Promise<ManageInstanceRow | undefined> {
    return dialect
      .forUpdate(this.db.selectFrom('manage_instances').selectAll().where('id', '=', id).where('manage_type', 'in', types))
      .executeTakeFirst();
  }

  /** The registrations of these ids that are of one of these types, by id. */
  async findMany(ids: readonly string[], types: readonly string[]): Promise<Map<string, ManageInstanceRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('id', 'in', [...ids])
      .where('manage_type', 'in', types)
      .execute();
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Ids of the approved Trace instances this instance reports to (it asked them: `initiator`). */
  async traceTargets(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('manage_instances')
      .select('id')
      .where('manage_type', '=', 'trace')
      .where('initiator', '=', 1)
      .where('registration_state', '=', 'Approved')
      .execute();
    return rows.map((row) => row.id);
  }

  findByNonce(registrationNonce: string): Promise<ManageInstanceRow | undefined> {
    return this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('registration_nonce', '=', registrationNonce)
      .executeTakeFirst();
  }

  findPeer(signingFingerprint: string, manageType: string): Promise<ManageInstanceRow | undefined> {
    return this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('signing_fingerprint', '=', signingFingerprint)
      .where('manage_type', '=', manageType)
      .executeTakeFirst();
  }

  async insert(row: ManageInstanceRow): Promise<void> {
    await this.db.insertInto('manage_instances').values(row).execute();
  }

  /**
   * Moves a registration from `from` to `to` — only from the `version` read, when given; false when
   * another change came first.
   */
  async changeState(id: string, from: string, to: TRegistrationState, now: string, version?: number): Promise<boolean> {
    let update = this.db
      .updateTable('manage_instances')
      .set((eb) => ({ registration_state: to, updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('registration_state', '=', from);
    if (version !== undefined) update = update.where('version', '=', version);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Counts a change (`version`) of a registration whose decision `state` the peer was just told
   * again, unless it changed since `version`: false then.
   */
  async markTold(id: string, state: TRegistrationState, version: number, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('manage_instances')
      .set((eb) => ({ updated_at: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('registration_state', '=', state)
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Whether an authorization or a machine data licence names this instance (its row must stay). */
  async referenced(id: string): Promise<boolean> {
    const authorization = await this.db
      .selectFrom('authorizations')
      .select('id')
      .where('manage_id', '=', id)
      .limit(1)
      .executeTakeFirst();
    if (authorization) return true;
    const dtl = await this.db.selectFrom('dtls').select('id').where('manage_id', '=', id).limit(1).executeTakeFirst();
    return dtl !== undefined;
  }

  async nonceSeen(registrationId: string, nonce: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('peer_nonces')
      .select('nonce')
      .where('registration_id', '=', registrationId)
      .where('nonce', '=', nonce)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Every registration that holds the peer's signing certificate (a network has few peers). */
  async withSigningCertificates(): Promise<{ registration_state: string; signing_certificate: string }[]> {
    const rows = await this.db
      .selectFrom('manage_instances')
      .select(['registration_state', 'signing_certificate'])
      .where('signing_certificate', 'is not', null)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((row) => ({ registration_state: row.registration_state, signing_certificate: row.signing_certificate! }));
  }

  /** Records a message nonce of a registration's peer; a unique violation means a replay. */
  async rememberNonce(registrationId: string, nonce: string, now: string): Promise<void> {
    await this.db.insertInto('peer_nonces').values({ registration_id: registrationId, nonce, created_at: now }).execute();
  }

  /** Forgets nonces older than `before` (their messages' timestamps are refused anyway). */
  async forgetNonces(before: string): Promise<void> {
    await this.db.deleteFrom('peer_nonces').where('created_at', '<', before).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('peer_nonces').where('registration_id', '=', id).execute();
    await this.db.deleteFrom('manage_instances').where('id', '=', id).execute();
  }

  list<T>(page: TPageQuery, types: readonly string[], view: (row: ManageInstanceRow) => T): Promise<TPage<T>> {
    return paginate(
      this.db.selectFrom('manage_instances').where('manage_type', 'in', types),
      page,
      (base) => base.selectAll().orderBy('created_at', 'desc').orderBy('id'),
      (rows) => rows.map(view),
    );
  }
}
