import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseKeyEncryptionKey } from '../../config.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { assertPrivateFile } from '../../lib/private-files.js';
import { openPrivateKey, sealPrivateKey } from '../../crypto/key-pairs.js';
import type { SettingsRepository } from '../settings/settings.repository.js';

export const KEY_ENCRYPTION_KEY_FILE = 'key-encryption.key';
const CHECK_SETTING = 'crypto.keyEncryptionKeyCheck';
const CHECK_TEXT = 'manifold key-encryption key check v1';

export interface KeyEncryptionKeySource {
  /** `KEY_ENCRYPTION_KEY`, when configured. */
  configured: Buffer | null;
  dataDir: string;
}

interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * The 32-byte key that seals the server's private keys at rest: `KEY_ENCRYPTION_KEY`, else the
 * key in `DATA_DIR/key-encryption.key` (created with mode 0600 at first start). The database
 * keeps a value sealed under it, so an instance started with another key refuses to start
 * instead of failing later on every signature. A refused start leaves no key file behind: none is
 * made for a database already sealed under a key, and one made meanwhile (another instance sealed
 * the database first) is removed. Never logged.
 */
export async function loadKeyEncryptionKey(
  source: KeyEncryptionKeySource,
  settings: SettingsRepository,
  log: Logger,
): Promise<Buffer> {
  const file = path.join(source.dataDir, KEY_ENCRYPTION_KEY_FILE);
  let key = source.configured ?? (await readKeyFile(file));
  let created = false;
  if (!key) {
    // a key made now could never open what the database holds sealed under another
    if ((await settings.get(CHECK_SETTING)) !== undefined) {
      throw new Error(
        `there is no key-encryption key in ${file} and this database's private keys are sealed under one; ` +
          "every instance sharing a database needs the same KEY_ENCRYPTION_KEY (or a copy of the first one's key file)",
      );
    }
    ({ key, created } = await createKeyFile(source.dataDir, file));
  }
  const stored = await settings.insertIfAbsent(CHECK_SETTING, sealPrivateKey(CHECK_TEXT, key));
  let opened: string | undefined;
  try {
    opened = openPrivateKey(stored, key);
  } catch (error) {
    if (!isCryptoError(error)) throw error;
  }
  if (opened !== CHECK_TEXT) {
    // another instance sealed the database first: the key this start made opens nothing
    if (created) await fs.rm(file, { force: true });
    throw new Error(
      `the key-encryption key (${source.configured ? 'KEY_ENCRYPTION_KEY' : file}) is not the one that sealed this database's private keys; ` +
        'every instance sharing a database needs the same KEY_ENCRYPTION_KEY',
    );
  }
  if (created) log.info(`Created the key-encryption key ${file} (mode 0600); back it up with the database.`);
  return key;
}

/** A new random key in `file`, or the key another process put there first (`created` false). */
async function createKeyFile(dataDir: string, file: string): Promise<{ key: Buffer; created: boolean }> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Written aside and linked into place, so a concurrent start never reads a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  let created = false;
  try {
    await fs.chmod(temporary, 0o600);
    await fs.link(temporary, file);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  const key = await readKeyFile(file);
  if (!key) throw new Error(`${file} could not be read back`);
  return { key, created };
}

async function readKeyFile(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    assertPrivateFile(file);
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const key = parseKeyEncryptionKey(text, file);
  if (!key) throw new Error(`${file} is empty; remove it or restore the key it held`);
  return key;
}
