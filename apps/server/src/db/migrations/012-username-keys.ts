import type { Kysely } from 'kysely';
import { usernameKey } from '../../modules/users/usernames.js';

type Users = Kysely<{ users: { id: number; username: string; username_key: string } }>;

/**
 * Usernames are now identified by their confusable skeleton (`usernameKey`), not just lower
 * case: recompute every stored key. Two existing accounts whose names are confusable keep
 * distinct keys (the later one's gets `#<id>`), so nobody is locked out; new ones are refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const users = db as Users;
  const rows = await users.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
  const keys = new Map<number, string>();
  const taken = new Set<string>();
  for (const row of rows) {
    const skeleton = usernameKey(row.username);
    const key = taken.has(skeleton) ? `${skeleton}#${row.id}` : skeleton;
    taken.add(key);
    keys.set(row.id, key);
  }
  // two passes: no key ever collides with another row's old key on the unique index
  for (const row of rows)
    await users
      .updateTable('users')
      .set({ username_key: `~${row.id}` })
      .where('id', '=', row.id)
      .execute();
  for (const [id, key] of keys) await users.updateTable('users').set({ username_key: key }).where('id', '=', id).execute();
}
