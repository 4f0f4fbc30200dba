import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** What a licence's limits count. */
export class LicenceUsageRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Registered machines, except rejected ones. */
  async machines(): Promise<number> {
    const row = await this.db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('registration_state', '!=', 'Rejected')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Peer instances (Manage, Trace and registered Protect), except rejected and cancelled ones. */
  async peerInstances(): Promise<number> {
    const peers = await this.db
      .selectFrom('manage_instances')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('registration_state', 'not in', ['Rejected', 'Cancelled'])
      .executeTakeFirstOrThrow();
    const protects = await this.db
      .selectFrom('protect_registrations')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('registration_state', 'not in', ['Rejected', 'Cancelled'])
      .where('signing_certificate', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(peers.n) + Number(protects.n);
  }
}
