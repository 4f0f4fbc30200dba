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
 * instead of failing later on every signature. Never logged.
 */
export async function loadKeyEncryptionKey(
  source: KeyEncryptionKeySource,
  settings: SettingsRepository,
  log: Logger,
): Promise<Buffer> {
  const key = source.configured ?? (await keyFromFile(source.dataDir, log));
  const stored = await settings.insertIfAbsent(CHECK_SETTING, sealPrivateKey(CHECK_TEXT, key));
  let opened: string | undefined;
  try {
    opened = openPrivateKey(stored, key);
  } catch (error) {
    if (!isCryptoError(error)) throw error;
  }
  if (opened !== CHECK_TEXT) {
    const where = source.configured ? 'KEY_ENCRYPTION_KEY' : path.join(source.dataDir, KEY_ENCRYPTION_KEY_FILE);
    throw new Error(
      `the key-encryption key (${where}) is not the one that sealed this database's private keys; ` +
        'every instance sharing a database needs the same KEY_ENCRYPTION_KEY',
    );
  }
  return key;
}

async function keyFromFile(dataDir: string, log: Logger): Promise<Buffer> {
  const file = path.join(dataDir, KEY_ENCRYPTION_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing) return existing;
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Written aside and linked into place, so a concurrent start never reads a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.chmod(temporary, 0o600);
    await fs.link(temporary, file);
    log.info(`Created the key-encryption key ${file} (mode 0600); back it up with the database.`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  const created = await readKeyFile(file);
  if (!created) throw new Error(`${file} could not be read back`);
  return created;
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
