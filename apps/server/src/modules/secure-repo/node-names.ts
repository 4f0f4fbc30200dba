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

/** The key two names of one folder must not share: the name with case folded. */
export function nodeNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}
