import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { SettingsRepository } from '../settings/settings.repository.js';

const algorithm = 'HS256';
const issuer = 'manifold';
const audience = 'manifold-console';
const secretSetting = 'session.signingKey';

export interface SessionClaims {
  sessionId: string;
  userId: number;
}

/**
 * Session tokens are JWTs signed with a 256-bit key created at first start and kept in the
 * database (so every instance on one database accepts them). Verification pins the algorithm,
 * the header `typ`, issuer, audience and expiry; the session row is checked separately.
 */
export class SessionTokens {
  private constructor(private readonly key: Uint8Array) {}

  static async load(settings: SettingsRepository): Promise<SessionTokens> {
    const stored = await settings.insertIfAbsent(secretSetting, randomBytes(32).toString('base64'));
    return new SessionTokens(Buffer.from(stored, 'base64'));
  }

  sign(claims: SessionClaims, expiresAt: Date): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /** The claims of a valid token, or undefined for anything else (bad, expired, wrong alg). */
  async verify(token: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [algorithm],
        typ: 'JWT',
        issuer,
        audience,
        requiredClaims: ['exp', 'sub', 'sid'],
      });
      const userId = Number(payload.sub);
      if (typeof payload.sid !== 'string' || !Number.isInteger(userId)) return undefined;
      return { sessionId: payload.sid, userId };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return undefined;
      throw error;
    }
  }
}
