import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isoNow } from '../../lib/time.js';

export interface ReferenceTarget {
  kind: 'package' | 'device';
  id: string;
}

export interface Referrer {
  kind: 'order' | 'authorization';
  id: string;
}

export interface NewReference {
  target: ReferenceTarget;
  referrer: Referrer;
  expiresAt: string | null;
}

/** `entity_references`: what keeps packages and machines from being deleted while in use. */
export class EntityReferencesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Inserts references in one multi-row statement. */
  async insert(references: NewReference[]): Promise<void> {
    if (references.length === 0) return;
    const now = isoNow();
    await this.db
      .insertInto('entity_references')
      .values(
        references.map(({ target, referrer, expiresAt }) => ({
          target_kind: target.kind,
          target_id: target.id,
          referrer_kind: referrer.kind,
          referrer_id: referrer.id,
          expires_at: expiresAt,
          released_at: null,
          created_at: now,
        })),
      )
      .execute();
  }

  async release(referrer: Referrer, now = isoNow()): Promise<void> {
    await this.db
      .updateTable('entity_references')
      .set({ released_at: now })
      .where('referrer_kind', '=', referrer.kind)
      .where('referrer_id', '=', referrer.id)
      .where('released_at', 'is', null)
      .execute();
  }
}
