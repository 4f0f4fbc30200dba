import { describe, expect, it } from 'vitest';
import { escalationNeeded, signedChallenge } from './escalation.js';

describe('escalationNeeded', () => {
  it('asks holders of a security key, and administrators only when configured', () => {
    expect(escalationNeeded({ role: 'USER', hasSecurityKey: true, requiredForAdmins: false })).toBe(true);
    expect(escalationNeeded({ role: 'ADMIN', hasSecurityKey: false, requiredForAdmins: false })).toBe(false);
    expect(escalationNeeded({ role: 'ADMIN', hasSecurityKey: false, requiredForAdmins: true })).toBe(true);
    expect(escalationNeeded({ role: 'USER', hasSecurityKey: false, requiredForAdmins: true })).toBe(false);
  });
});

describe('signedChallenge', () => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('reads the challenge of clientDataJSON', () => {
    expect(signedChallenge(encode({ type: 'webauthn.get', challenge: 'abc' }))).toBe('abc');
  });

  it('answers undefined for anything else', () => {
    for (const bad of ['', '!!!', encode('text'), encode({ challenge: 5 }), encode({ challenge: 'x'.repeat(129) }), encode(null)])
      expect(signedChallenge(bad)).toBeUndefined();
  });
});
