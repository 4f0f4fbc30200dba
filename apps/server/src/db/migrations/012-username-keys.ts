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
  await setKeys(users, keys);
}

/** Back to the keys the earlier server made and looks names up by: the name trimmed, in lower case. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const users = db as Users;
  const rows = await users.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
  await setKeys(users, new Map(rows.map((row) => [row.id, row.username.trim().toLowerCase()])));
}

/** Sets every user's key, in two passes: no key ever collides with another row's old key on the unique index. */
async function setKeys(users: Users, keys: Map<number, string>): Promise<void> {
  for (const id of keys.keys())
    await users
      .updateTable('users')
      .set({ username_key: `~${id}` })
      .where('id', '=', id)
      .execute();
  for (const [id, key] of keys) await users.updateTable('users').set({ username_key: key }).where('id', '=', id).execute();
}
