import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * The most common passwords of public breach corpora (zxcvbn-ts's list, about 49,000 entries,
 * lower case), refused as ASVS 2.1.7 asks.
 */
const commonPasswords = new Set<string>(dictionary['passwords-common'] as string[]);

export function isCommonPassword(password: string): boolean {
  return commonPasswords.has(password.toLowerCase());
}
