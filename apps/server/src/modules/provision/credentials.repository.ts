import type { Insertable, Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.js';
import type {
  DB,
  DevelopmentCaRow,
  ServerCertificateRow,
  ServerCertificatesTable,
  ServerKeyPairRow,
  ServerKeyPairsTable,
  TrustAnchorRow,
  TrustAnchorsTable,
} from '../../db/schema.js';

export type KeyPurpose = 'signing' | 'encryption';
export const keyPurposes: readonly KeyPurpose[] = ['signing', 'encryption'];

const DEVELOPMENT_CA_ID = 'default';

/** The server's key pairs, certificates, trust anchors and development CA. */
export class CredentialsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async keyPairs(): Promise<Partial<Record<KeyPurpose, ServerKeyPairRow>>> {
    const rows = await this.db.selectFrom('server_key_pairs').selectAll().execute();
    return Object.fromEntries(rows.map((row) => [row.purpose, row]));
  }

  keyPair(purpose: KeyPurpose): Promise<ServerKeyPairRow | undefined> {
    return this.db.selectFrom('server_key_pairs').selectAll().where('purpose', '=', purpose).executeTakeFirst();
  }

  /**
   * The key pair of `purpose`, held shared until the transaction ends (a certificate install): a
   * re-key, which locks the pairs first ({@link lockKeyPairs}), waits for it, or it for the re-key
   * and then finds the pair gone (PostgreSQL) or replaced (MariaDB).
   */
  keyPairHeld(purpose: KeyPurpose, dialect: Dialect): Promise<ServerKeyPairRow | undefined> {
    return dialect.forShare(this.db.selectFrom('server_key_pairs').selectAll().where('purpose', '=', purpose)).executeTakeFirst();
  }

  /**
   * The key pairs, each locked for the transaction (a re-key): a certificate install holding one
   * ({@link keyPairHeld}) is waited for. Locks again until the rows locked are the rows there are:
   * on PostgreSQL a lock that waited for a concurrent re-key finds the rows it replaced gone, and
   * not the new ones.
   */
  async lockKeyPairs(dialect: Dialect): Promise<Partial<Record<KeyPurpose, ServerKeyPairRow>>> {
    const versions = (rows: { purpose: string; generation: number }[]) =>
      rows
        .map((row) => `${row.purpose}:${Number(row.generation)}`)
        .sort()
        .join(',');
    for (;;) {
      const locked = await dialect.forUpdate(this.db.selectFrom('server_key_pairs').select(['purpose', 'generation'])).execute();
      const rows = await this.db.selectFrom('server_key_pairs').selectAll().execute();
      if (versions(locked) === versions(rows)) return Object.fromEntries(rows.map((row) => [row.purpose, row]));
    }
  }

  /** The key pairs of these purposes with their installed certificates' PEM (null when none), in one query. */
  keyPairsWithCertificates(purposes: KeyPurpose[]): Promise<(ServerKeyPairRow & { certificate_pem: string | null })[]> {
    return this.db
      .selectFrom('server_key_pairs as k')
      .leftJoin('server_certificates as c', 'c.purpose', 'k.purpose')
      .selectAll('k')
      .select('c.certificate_pem')
      .where('k.purpose', 'in', purposes)
      .execute();
  }

  /** Inserts both pairs; a concurrent provisioning makes this fail with a unique violation. */
  async insertKeyPairs(rows: Insertable<ServerKeyPairsTable>[]): Promise<void> {
    await this.db.insertInto('server_key_pairs').values(rows).execute();
  }

  async deleteKeyPairs(): Promise<void> {
    await this.db.deleteFrom('server_key_pairs').execute();
  }

  certificate(purpose: KeyPurpose): Promise<ServerCertificateRow | undefined> {
    return this.db.selectFrom('server_certificates').selectAll().where('purpose', '=', purpose).executeTakeFirst();
  }

  async replaceCertificate(row: Insertable<ServerCertificatesTable>): Promise<void> {
    await this.db.deleteFrom('server_certificates').where('purpose', '=', row.purpose).execute();
    await this.db.insertInto('server_certificates').values(row).execute();
  }

  async deleteCertificates(): Promise<void> {
    await this.db.deleteFrom('server_certificates').execute();
  }

  /** Whether a certificate of this purpose is installed and valid at `at` (ISO time). */
  async hasValidCertificate(purpose: KeyPurpose, at: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('server_certificates')
      .select('purpose')
      .where('purpose', '=', purpose)
      .where('not_before', '<=', at)
      .where('not_after', '>', at)
      .executeTakeFirst();
    return row !== undefined;
  }

  async hasBothKeyPairs(): Promise<boolean> {
    const row = await this.db
      .selectFrom('server_key_pairs')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n) >= keyPurposes.length;
  }

  trustAnchors(): Promise<TrustAnchorRow[]> {
    return this.db.selectFrom('trust_anchors').selectAll().orderBy('created_at').orderBy('fingerprint_sha256').execute();
  }

  trustAnchor(fingerprintSha256: string): Promise<TrustAnchorRow | undefined> {
    return this.db.selectFrom('trust_anchors').selectAll().where('fingerprint_sha256', '=', fingerprintSha256).executeTakeFirst();
  }

  async insertTrustAnchor(row: Insertable<TrustAnchorsTable>): Promise<void> {
    await this.db.insertInto('trust_anchors').values(row).execute();
  }

  developmentCa(): Promise<DevelopmentCaRow | undefined> {
    return this.db.selectFrom('development_ca').selectAll().where('id', '=', DEVELOPMENT_CA_ID).executeTakeFirst();
  }

  async insertDevelopmentCa(row: Omit<DevelopmentCaRow, 'id'>): Promise<void> {
    await this.db
      .insertInto('development_ca')
      .values({ id: DEVELOPMENT_CA_ID, ...row })
      .execute();
  }
}
