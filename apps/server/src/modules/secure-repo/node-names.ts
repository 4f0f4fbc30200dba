import { createHash } from 'node:crypto';
import { AppError } from '../../lib/app-error.js';
import { UNSAFE_NAME_CHARACTERS } from '../../lib/file-names.js';

export const NODE_NAME_MAX_LENGTH = 255;

/** The characters of {@link UNSAFE_NAME_CHARACTERS}: controls and bidirectional formatting. */
const FORBIDDEN = new RegExp(`[${UNSAFE_NAME_CHARACTERS}]`);

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
