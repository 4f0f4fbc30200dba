/**
 * `npm run migrate -- --list` and `npm run migrate -- --down-to <migration> [--yes]`
 *
 * The database the server's settings name (`DATABASE_URL`, else `DATA_DIR`'s SQLite file), as
 * the server would open it. `--list` shows every migration this version knows and whether it has
 * run, in the order they ran. `--down-to` undoes, newest first, every migration that ran after the
 * one named (which stays): to go back to an earlier version of the server, stop every instance and run this with
 * the version you are leaving, naming the last migration of the version you go back to. Without
 * `--yes` it only lists what it would undo. Undoing drops what those migrations added (tables,
 * columns and what is in them): take a backup first (docs/operations.md). Exit code 0 when done,
 * 1 when a migration could not be undone (on PostgreSQL and SQLite the whole call runs in one
 * transaction and nothing is undone; MariaDB/MySQL commit each schema change, so those undone
 * before it stay undone and it may be partly undone), 2 on usage errors.
 */
import fs from 'node:fs';
import { Migrator } from 'kysely';
import { ConfigError, loadConfig } from '../config.js';
import { createDatabase } from '../db/database.js';
import { migrationProvider } from '../db/migrations/index.js';

const usage = 'usage: npm run migrate -- --list | --down-to <migration> [--yes]';

async function main(args: string[]): Promise<number> {
  const list = args.length === 1 && args[0] === '--list';
  const downTo = args[0] === '--down-to' ? args[1] : undefined;
  const confirmed = args[2] === '--yes';
  if (!list && (downTo === undefined || downTo.startsWith('--') || args.length > (confirmed ? 3 : 2))) {
    console.error(usage);
    return 2;
  }
  let target;
  try {
    target = loadConfig().database;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  if (target.kind === 'sqlite' && (target.file === ':memory:' || !fs.existsSync(target.file))) {
    console.error(`no database at ${target.file}: set DATA_DIR or DATABASE_URL as the server has them`);
    return 2;
  }
  const database = createDatabase(target);
  try {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider(target.kind), allowUnorderedMigrations: true });
    const known = await migrator.getMigrations();
    // in the order they ran (as Kysely orders them: by time, then name), then those pending
    const ran = known
      .filter((migration) => migration.executedAt)
      .sort((a, b) => a.executedAt!.getTime() - b.executedAt!.getTime() || a.name.localeCompare(b.name));
    if (list) {
      for (const migration of ran) console.log(`${migration.name}  ran ${migration.executedAt!.toISOString()}`);
      for (const migration of known.filter((m) => !m.executedAt)) console.log(`${migration.name}  pending`);
      return 0;
    }
    if (!known.some((migration) => migration.name === downTo)) {
      console.error(`no migration named ${downTo}; npm run migrate -- --list shows them`);
      return 2;
    }
    const at = ran.findIndex((migration) => migration.name === downTo);
    if (at < 0) {
      console.error(`${downTo} has not run on this database: there is nothing after it to undo`);
      return 2;
    }
    const toUndo = ran.slice(at + 1).reverse();
    if (toUndo.length === 0) {
      console.log(`nothing to undo: ${downTo} is the last migration that ran`);
      return 0;
    }
    if (!confirmed) {
      console.log(`would undo, newest first (add --yes to do it):`);
      for (const migration of toUndo) console.log(`  ${migration.name}`);
      return 0;
    }
    const { error, results } = await migrator.migrateTo(downTo!);
    if (!error) {
      for (const result of results ?? []) console.log(`${result.migrationName}  undone`);
      return 0;
    }
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    console.error(`stopped${failed ? ` at ${failed}` : ''}: ${error instanceof Error ? error.message : String(error)}`);
    if (target.kind === 'mysql') {
      // MariaDB/MySQL commit every schema change at once: what ran before the failure stays
      for (const result of results ?? []) if (result.status === 'Success') console.log(`${result.migrationName}  undone`);
      if (failed) console.error(`${failed} may be partly undone: MariaDB/MySQL cannot take back a schema change`);
    } else {
      console.error('nothing was undone: the whole call ran in one transaction');
    }
    return 1;
  } finally {
    await database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
