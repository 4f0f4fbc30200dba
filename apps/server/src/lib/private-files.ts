import fs from 'node:fs';

const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(3, '0');

/**
 * Refuses a key store (the SQLite database, the key-encryption key file) that users other than
 * the server's can read or write: it holds the session signing key and the sealed private keys.
 * A file that does not exist yet is fine.
 */
export function assertPrivateFile(file: string): void {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((mode & 0o077) !== 0) {
    throw new Error(`${file} is open to other users (mode ${octal(mode)}): run "chmod 600 ${file}" and start again`);
  }
}

/** Creates a directory (and its parents) readable by the server's user only. */
export function makePrivateDirectory(directory: string): void {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
}

/**
 * Creates an empty file with mode 0600 unless it exists, so that SQLite (which gives its `-wal`
 * and `-shm` files the database file's mode) never creates the database world-readable.
 */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
