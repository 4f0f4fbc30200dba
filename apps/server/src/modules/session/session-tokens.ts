import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../settings/settings.repository.js';

const issuer = 'manifold';
const audience = 'manifold-console';
const secretSetting = 'session.signingKey';
/** The one header this server issues and accepts: the algorithm allow-list is exactly HS256. */
const header = { alg: 'HS256', typ: 'JWT' } as const;
const encodedHeader = Buffer.from(JSON.stringify(header)).toString('base64url');
/** Tolerated clock difference between instances for `iat`, seconds (expiry is strict). */
const clockSkewSeconds = 30;

export interface SessionClaims {
  sessionId: string;
  userId: number;
}

interface Payload {
  sid?: unknown;
  sub?: unknown;
  iss?: unknown;
  aud?: unknown;
  iat?: unknown;
  exp?: unknown;
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isOurHeader(given: unknown): boolean {
  return (
    typeof given === 'object' &&
    given !== null &&
    Object.keys(given).length === 2 &&
    (given as Record<string, unknown>).alg === header.alg &&
    (given as Record<string, unknown>).typ === header.typ
  );
}

/**
 * Session tokens are compact JWTs (RFC 7519) signed with HMAC-SHA256 and a 256-bit key created
 * at first start and kept in the database, so every instance on one database accepts them.
 * Verification is synchronous `node:crypto` (no thread-pool round trip on every request) and
 * strict: the header must be exactly {alg: HS256, typ: JWT}; issuer, audience, subject, session
 * id and expiry are required. The session row is checked separately (revocation).
 */
export class SessionTokens {
  private constructor(private readonly key: Buffer) {}

  static async load(settings: Pick<SettingsRepository, 'insertIfAbsent'>): Promise<SessionTokens> {
    const stored = await settings.insertIfAbsent(secretSetting, randomBytes(32).toString('base64'));
    return new SessionTokens(Buffer.from(stored, 'base64'));
  }

  async sign(claims: SessionClaims, expiresAt: Date): Promise<string> {
    const payload = {
      sid: claims.sessionId,
      sub: String(claims.userId),
      iss: issuer,
      aud: audience,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    };
    const signingInput = `${encodedHeader}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${signingInput}.${this.mac(signingInput).toString('base64url')}`;
  }

  /** The claims of a valid token, or undefined for anything else (bad, expired, wrong alg). */
  verify(token: string): SessionClaims | undefined {
    if (token.length > 4096) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    // the header this server writes is accepted as it stands; any other spelling is decoded and
    // must say exactly the same
    if (headerPart !== encodedHeader && !isOurHeader(decodeJson(headerPart))) return undefined;
    // compare the encoded text: base64url's last character has spare bits, and a token has
    // exactly one valid spelling
    const expected = Buffer.from(this.mac(`${headerPart}.${payloadPart}`).toString('base64url'));
    const given = Buffer.from(signaturePart);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;

    const payload = decodeJson(payloadPart) as Payload | undefined;
    if (typeof payload !== 'object' || payload === null) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.exp !== 'number' || payload.exp <= now) return undefined;
    if (typeof payload.iat === 'number' && payload.iat > now + clockSkewSeconds) return undefined;
    if (payload.iss !== issuer || payload.aud !== audience) return undefined;
    const userId = Number(payload.sub);
    if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string' || !Number.isSafeInteger(userId)) return undefined;
    return { sessionId: payload.sid, userId };
  }

  private mac(signingInput: string): Buffer {
    return createHmac('sha256', this.key).update(signingInput).digest();
  }
}
