import { describe, expect, it } from 'vitest';
import type { TLicenceDocument } from '@manifold/contract';
import { generateKeyPair, publicKeyPemFromPrivate } from '../../crypto/key-pairs.js';
import { AppError } from '../../lib/app-error.js';
import { issueLicence, licenceState, verifyLicence } from './licence-document.js';

const document: TLicenceDocument = {
  licenceId: 'L-1',
  holder: 'Acme',
  validFrom: '2026-01-01T00:00:00.000Z',
  validUntil: '2027-01-01T00:00:00.000Z',
  limits: { machines: 3 },
  addons: ['quality'],
};

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.token;
    throw error;
  }
  throw new Error('not refused');
}

describe('licence documents', () => {
  it.each(['EC', 'RSA'] as const)('a %s-signed licence verifies with the publisher key and no other', async (keyType) => {
    const publisher = await generateKeyPair(keyType);
    const other = await generateKeyPair(keyType);
    const file = await issueLicence(document, publisher.privateKeyPem);
    expect(await verifyLicence(`${file}\n`, publisherPublic(publisher.privateKeyPem))).toEqual(document);
    expect(await refusal(verifyLicence(file, publisherPublic(other.privateKeyPem)))).toBe('licenceInvalid');
  });

  it('refuses an edited payload, header or signature, and things that are not licences', async () => {
    const publisher = await generateKeyPair('EC');
    const key = publisherPublic(publisher.privateKeyPem);
    const file = await issueLicence(document, publisher.privateKeyPem);
    const [header, payload, signature] = file.split('.') as [string, string, string];
    const raised = Buffer.from(JSON.stringify({ ...document, limits: { machines: 300 } })).toString('base64url');
    // one character of the signature changed, always to another one (ending it in "AA" left it as it
    // was whenever it already ended so: the test failed about once in 256 runs)
    const edited = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const bad of [
      `${header}.${raised}.${signature}`,
      `${header}.${payload}.${edited}`,
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`,
      `${header}.${payload}`,
      'plain text',
      '',
    ]) {
      expect(await refusal(verifyLicence(bad, key)), bad).toBe('licenceInvalid');
    }
  });

  it('refuses a signed document that is not a licence', async () => {
    const publisher = await generateKeyPair('EC');
    const { signDetachedJws } = await import('../../crypto/jws.js');
    const payload = Buffer.from(JSON.stringify({ holder: 'Acme' }));
    const [header, , signature] = (await signDetachedJws(payload, publisher.privateKeyPem)).split('.');
    const file = `${header}.${payload.toString('base64url')}.${signature}`;
    expect(await refusal(verifyLicence(file, publisherPublic(publisher.privateKeyPem)))).toBe('licenceInvalid');
  });

  it('is valid, expiring within 30 days, or expired (also before it starts)', () => {
    expect(licenceState(document, new Date('2026-06-01T00:00:00Z'))).toEqual({ state: 'valid', daysLeft: 214 });
    expect(licenceState(document, new Date('2026-12-20T00:00:00Z'))).toEqual({ state: 'expiring', daysLeft: 12 });
    expect(licenceState(document, new Date('2027-01-01T00:00:00Z')).state).toBe('expired');
    expect(licenceState(document, new Date('2025-12-31T00:00:00Z')).state).toBe('expired');
  });
});

function publisherPublic(privateKeyPem: string): string {
  return publicKeyPemFromPrivate(privateKeyPem);
}
