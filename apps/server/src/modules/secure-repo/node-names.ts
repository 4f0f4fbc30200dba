import { createHash } from 'node:crypto';
import { AppError } from '../../lib/app-error.js';

export const NODE_NAME_MAX_LENGTH = 255;

/**
 * C0 and C1 controls, and the bidirectional formatting characters that make a name display
 * other than it reads (`invoice\u202Efdp.exe` shows as `invoiceexe.pdf`).
 */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A folder or file name as stored: NFC, trimmed. Refused (`secureRepoNameInvalid`, naming
 * `field`) when empty, longer than 255 characters, `.` or `..`, or holding `/`, `\` or a
 * character of {@link FORBIDDEN}. Names are data only — storage keys are generated — but a name
 * a user downloads becomes a file name on their disk, so it must be one everywhere.
 */
export function checkedNodeName(raw: string | undefined, field: string): string {
  const name = (raw ?? '').normalize('NFC').trim();
  const valid =
    name.length > 0 &&
    name.length <= NODE_NAME_MAX_LENGTH &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !FORBIDDEN.test(name);
  if (!valid) throw new AppError('secureRepoNameInvalid', { field });
  return name;
}

/** Characters the `name_key` column holds (varchar(400), counted in code points by PostgreSQL and MariaDB). */
export const NODE_NAME_KEY_MAX_LENGTH = 400;

/**
 * The key two names of one folder must not share: the name with case folded. Folding can
 * lengthen a name (`İ` becomes `i̇`, two characters), so a folded name longer than the column is
 * kept as its first characters and the SHA-256 of the whole folded name: still one key per name
 * ignoring case, and sorted by its beginning.
 */
export function nodeNameKey(name: string): string {
  const folded = name.normalize('NFC').toLowerCase();
  const characters = Array.from(folded);
  if (characters.length <= NODE_NAME_KEY_MAX_LENGTH) return folded;
  const digest = createHash('sha256').update(folded).digest('hex');
  return `${characters.slice(0, NODE_NAME_KEY_MAX_LENGTH - digest.length - 1).join('')}#${digest}`;
}
