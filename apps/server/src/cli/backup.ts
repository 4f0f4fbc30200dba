/**
 * `npm run backup -- --out <new directory>`
 *
 * An online backup of an instance on SQLite (the default), taken while its servers run: the
 * directory it writes is a `DATA_DIR` of its own — `manifold.db` (SQLite's online backup: one
 * consistent moment of the database), `storage/` (every object of the local disk provider) and
 * `key-encryption.key` (when the key is that file, not `KEY_ENCRYPTION_KEY`). To restore, start a
 * server with `DATA_DIR` set to it (docs/operations.md). The database is copied first, then the
 * objects, and every object the copied database refers to is checked to be there: one deleted
 * while the backup ran (a file removed meanwhile) is named and the exit code is 1. Objects kept by
 * S3 or Azure are not copied (the answer says where they are). PostgreSQL and MariaDB have their
 * own tools (`pg_dump`, `mariadb-dump`): exit code 2 says so, as for usage errors.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { ConfigError, loadConfig } from '../config.js';
import { createDatabase } from '../db/database.js';
import { StorageReferencesRepository } from '../jobs/storage-references.repository.js';
import { KEY_ENCRYPTION_KEY_FILE } from '../modules/provision/key-encryption-key.js';
import { SettingsRepository } from '../modules/settings/settings.repository.js';
import { STORAGE_PROVIDER_SETTING, ZProviderSelection } from '../storage/provider-storage.js';
import { storageKeyPattern } from '../storage/storage.js';

const usage = 'usage: npm run backup -- --out <new directory>';

/** Copies every object of the local disk provider at `from` to `to` (same layout); answers how many. */
async function copyObjects(from: string, to: string): Promise<number> {
  let copied = 0;
  if (!fs.existsSync(from)) return copied;
  for (const prefix of await fsp.readdir(from, { withFileTypes: true })) {
    if (!prefix.isDirectory() || !/^[a-f0-9]{2}$/.test(prefix.name)) continue;
    await fsp.mkdir(path.join(to, prefix.name), { recursive: true, mode: 0o700 });
    for (const entry of await fsp.readdir(path.join(from, prefix.name), { withFileTypes: true })) {
      if (!entry.isFile() || !storageKeyPattern.test(entry.name)) continue;
      try {
        await fsp.copyFile(
          path.join(from, prefix.name, entry.name),
          path.join(to, prefix.name, entry.name),
          fs.constants.COPYFILE_FICLONE,
        );
        copied += 1;
      } catch (error) {
        // deleted since it was listed: the check below names it if the copied database refers to it
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
  return copied;
}

async function main(args: string[]): Promise<number> {
  const out = args.length === 2 && args[0] === '--out' ? path.resolve(args[1]!) : undefined;
  if (!out) {
    console.error(usage);
    return 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  if (config.database.kind !== 'sqlite') {
    const tool = config.database.kind === 'postgres' ? 'pg_dump' : 'mariadb-dump --single-transaction';
    console.error(
      `the database is ${config.database.kind === 'postgres' ? 'PostgreSQL' : 'MariaDB/MySQL'}: back it up with ${tool}, ` +
        `and DATA_DIR (${config.dataDir}: storage/ and ${KEY_ENCRYPTION_KEY_FILE}) with it (docs/operations.md)`,
    );
    return 2;
  }
  const source = config.database.file;
  if (source === ':memory:' || !fs.existsSync(source)) {
    console.error(`no database at ${source}: set DATA_DIR or DATABASE_URL as the server has them`);
    return 2;
  }
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
    console.error(`${out} is not empty: name a new directory`);
    return 2;
  }
  await fsp.mkdir(out, { recursive: true, mode: 0o700 });

  const database = path.join(out, 'manifold.db');
  const live = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    await live.backup(database);
  } finally {
    live.close();
  }
  await fsp.chmod(database, 0o600);
  console.log(`database: ${source} -> ${database}`);

  const objects = await copyObjects(path.join(config.dataDir, 'storage'), path.join(out, 'storage'));
  console.log(`storage: ${objects} objects of the local disk -> ${path.join(out, 'storage')}`);

  if (config.keyEncryptionKey) {
    console.log('key-encryption key: KEY_ENCRYPTION_KEY is set; keep it with this backup (it is not copied)');
  } else {
    const keyFile = path.join(config.dataDir, KEY_ENCRYPTION_KEY_FILE);
    await fsp.copyFile(keyFile, path.join(out, KEY_ENCRYPTION_KEY_FILE));
    await fsp.chmod(path.join(out, KEY_ENCRYPTION_KEY_FILE), 0o600);
    console.log(`key-encryption key: ${keyFile} -> ${path.join(out, KEY_ENCRYPTION_KEY_FILE)}`);
  }

  const copy = createDatabase({ kind: 'sqlite', file: database });
  try {
    const raw = await new SettingsRepository(copy.db).get(STORAGE_PROVIDER_SETTING);
    const selection = raw ? ZProviderSelection.parse(JSON.parse(raw)) : undefined;
    const remote = [selection?.current, selection?.previous].filter((record) => record && record.identifier !== 'local');
    if (remote.length > 0) {
      for (const record of remote) {
        console.log(`storage: objects kept at ${record!.location} are not copied: back them up with the provider's tools`);
      }
      return 0;
    }
    const missing: string[] = [];
    for await (const key of new StorageReferencesRepository(copy.db).allReferenced()) {
      if (!fs.existsSync(path.join(out, 'storage', key.slice(0, 2), key))) missing.push(key);
    }
    if (missing.length > 0) {
      console.error(
        `${missing.length} objects the database refers to were deleted before they were copied ` +
          `(${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}): take the backup again`,
      );
      return 1;
    }
    console.log('backup complete: every object the database refers to is in it');
    return 0;
  } finally {
    await copy.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
