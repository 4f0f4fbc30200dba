/**
 * Whether a sensitive action needs an escalated session from this caller: always from one who has
 * a security key; from every administrator when the setting asks for it.
 */
export function escalationNeeded(input: { role: string; hasSecurityKey: boolean; requiredForAdmins: boolean }): boolean {
  return input.hasSecurityKey || (input.requiredForAdmins && input.role === 'ADMIN');
}

/** The challenge a browser signed, from its base64url `clientDataJSON`; undefined when unreadable. */
export function signedChallenge(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as unknown;
    if (typeof data !== 'object' || data === null) return undefined;
    const challenge = (data as { challenge?: unknown }).challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : undefined;
  } catch {
    return undefined;
  }
}
