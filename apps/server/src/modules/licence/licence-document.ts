import { LICENCE_WARNING_DAYS, ZLicenceDocument, type TLicenceDocument } from '@manifold/contract';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { signDetachedJws, verifyDetachedJws } from '../../crypto/jws.js';
import { AppError } from '../../lib/app-error.js';

/**
 * An operating licence file is one compact JWS (RFC 7515, `<header>.<payload>.<signature>`,
 * RS256 or ES256) whose payload is the licence document as JSON, signed by the licence
 * publisher. The server verifies it with the publisher's certificate or public key only
 * (`LICENCE_PUBLISHER_CERT`): the algorithm must fit that key, anything else is refused.
 */
export async function issueLicence(document: TLicenceDocument, publisherPrivateKeyPem: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify(ZLicenceDocument.parse(document)), 'utf8');
  const detached = await signDetachedJws(payload, publisherPrivateKeyPem);
  const [header, , signature] = detached.split('.');
  return `${header}.${payload.toString('base64url')}.${signature}`;
}

const base64url = /^[A-Za-z0-9_-]+$/;

/** Verifies a licence file's signature and shape; `licenceInvalid` when either fails. */
export async function verifyLicence(fileText: string, publisherPem: string): Promise<TLicenceDocument> {
  const parts = fileText.trim().split('.');
  const [header, payload, signature] = parts;
  if (parts.length !== 3 || !header || !payload || !signature || ![header, payload, signature].every((p) => base64url.test(p))) {
    throw new AppError('licenceInvalid', { field: 'file', description: 'The file is not a licence (a compact JWS)' });
  }
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.toString('base64url') !== payload) {
    throw new AppError('licenceInvalid', { field: 'file', description: 'The licence payload is not canonical base64url' });
  }
  try {
    await verifyDetachedJws(`${header}..${signature}`, bytes, publisherPem);
  } catch (error) {
    if (isCryptoError(error)) throw new AppError('licenceInvalid', { field: 'file' });
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AppError('licenceInvalid', { field: 'file', description: 'The licence payload is not JSON' });
  }
  const parsed = ZLicenceDocument.safeParse(json);
  if (!parsed.success) {
    throw new AppError('licenceInvalid', { field: 'file', description: 'The licence document lacks required fields' });
  }
  if (Date.parse(parsed.data.validUntil) <= Date.parse(parsed.data.validFrom)) {
    throw new AppError('licenceInvalid', { field: 'file', description: 'The licence ends before it starts' });
  }
  return parsed.data;
}

export type LicenceState = 'valid' | 'expiring' | 'expired';

const DAY_MS = 86_400_000;

/** Where a licence stands at `now`: not yet valid counts as expired (it cannot be used). */
export function licenceState(
  document: Pick<TLicenceDocument, 'validFrom' | 'validUntil'>,
  now: Date,
): {
  state: LicenceState;
  daysLeft: number;
} {
  const until = Date.parse(document.validUntil);
  const daysLeft = Math.max(0, Math.floor((until - now.getTime()) / DAY_MS));
  if (now.getTime() < Date.parse(document.validFrom) || now.getTime() >= until) return { state: 'expired', daysLeft };
  return { state: daysLeft < LICENCE_WARNING_DAYS ? 'expiring' : 'valid', daysLeft };
}
