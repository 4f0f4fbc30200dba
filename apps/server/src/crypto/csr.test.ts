import { KeyUsageFlags } from '@peculiar/x509';
import { beforeAll, describe, expect, it } from 'vitest';
import { pathOf, runTool, withTempFiles } from './crypto-test-helpers.js';
import { createCsr, csrSubject, keyUsagesFor, parseAndVerifyCsr } from './csr.js';
import { generateKeyPair, type KeyPairPem, type KeyType } from './key-pairs.js';

function opensslReq(csrPem: string, extra: string[]): { status: number | null; text: string } {
  return withTempFiles({ 'request.csr': csrPem }, (paths) => {
    const result = runTool('openssl', ['req', '-in', pathOf(paths, 'request.csr'), '-noout', ...extra]);
    return { status: result.status, text: result.stdout + result.stderr };
  });
}

describe('createCsr', () => {
  const keys: Partial<Record<KeyType, KeyPairPem>> = {};

  beforeAll(async () => {
    [keys.RSA, keys.EC] = await Promise.all([generateKeyPair('RSA'), generateKeyPair('EC')]);
  });

  const cases = [
    { keyType: 'RSA', purpose: 'signing', usage: 'Digital Signature, Non Repudiation', sig: 'sha256WithRSAEncryption' },
    { keyType: 'RSA', purpose: 'encryption', usage: 'Key Encipherment, Data Encipherment', sig: 'sha256WithRSAEncryption' },
    { keyType: 'EC', purpose: 'signing', usage: 'Digital Signature, Non Repudiation', sig: 'ecdsa-with-SHA256' },
    { keyType: 'EC', purpose: 'encryption', usage: 'Key Agreement', sig: 'ecdsa-with-SHA256' },
  ] as const;

  for (const { keyType, purpose, usage, sig } of cases) {
    it(`makes an ${keyType} ${purpose} CSR that openssl req -verify accepts`, async () => {
      const pair = keys[keyType];
      if (!pair) throw new Error('keys not generated');
      const csrPem = await createCsr({ siteName: 'Acme Works', service: 'manage', purpose, privateKeyPem: pair.privateKeyPem });
      expect(csrPem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);

      const verified = opensslReq(csrPem, ['-verify']);
      expect(verified.status).toBe(0);
      expect(verified.text).toMatch(/verify OK/i);

      const text = opensslReq(csrPem, ['-text']).text;
      expect(text).toContain(`Subject: CN = Acme Works manage ${purpose}, O = Acme Works, OU = manage`);
      expect(text).toContain(`Signature Algorithm: ${sig}`);
      expect(/X509v3 Key Usage: critical\s*\n\s*(.+)\n/.exec(text)?.[1]?.trim()).toBe(usage);

      const pubkey = withTempFiles(
        { 'request.csr': csrPem },
        (paths) => runTool('openssl', ['req', '-in', pathOf(paths, 'request.csr'), '-noout', '-pubkey']).stdout,
      );
      expect(pubkey).toBe(pair.publicKeyPem);
    });
  }

  it('parses its own CSR and reads back the requested key usage', async () => {
    const pair = keys.EC;
    if (!pair) throw new Error('keys not generated');
    const csrPem = await createCsr({
      siteName: 'Acme',
      service: 'trace',
      purpose: 'encryption',
      privateKeyPem: pair.privateKeyPem,
    });
    const parsed = await parseAndVerifyCsr(csrPem);
    expect(parsed.subject).toBe('CN=Acme trace encryption, O=Acme, OU=trace');
    expect(parsed.keyUsage).toBe(KeyUsageFlags.keyAgreement);
  });

  it('keeps special characters of the site name intact in the subject', async () => {
    const pair = keys.EC;
    if (!pair) throw new Error('keys not generated');
    const csrPem = await createCsr({
      siteName: 'Smith, Jones + Co',
      service: 'manage',
      purpose: 'signing',
      privateKeyPem: pair.privateKeyPem,
    });
    const subject = opensslReq(csrPem, ['-subject', '-nameopt', 'RFC2253']).text.trim();
    expect(subject).toBe('subject=OU=manage,O=Smith\\, Jones \\+ Co,CN=Smith\\, Jones \\+ Co manage signing');
  });

  it('refuses a CSR whose signature was tampered with', async () => {
    const pair = keys.RSA;
    if (!pair) throw new Error('keys not generated');
    const csrPem = await createCsr({
      siteName: 'Acme',
      service: 'manage',
      purpose: 'signing',
      privateKeyPem: pair.privateKeyPem,
    });
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] = (der[der.length - 5] ?? 0) ^ 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(parseAndVerifyCsr(tampered)).rejects.toMatchObject({ reason: 'badSignature' });
    expect(opensslReq(tampered, ['-verify']).text).toMatch(/verify failure/i);
    await expect(parseAndVerifyCsr('garbage')).rejects.toMatchObject({ reason: 'malformed' });
  });
});

describe('csrSubject / keyUsagesFor', () => {
  it('refuses an empty site name or one over 64 characters; shortens a long one in the CN only', () => {
    expect(() => csrSubject('  ', 'manage', 'signing')).toThrow(expect.objectContaining({ reason: 'invalidInput' }));
    expect(() => csrSubject('x'.repeat(65), 'manage', 'signing')).toThrow(expect.objectContaining({ reason: 'invalidInput' }));
    // the longest site name the settings take: the CN keeps its 64 characters, O the whole name
    const site = `${'x'.repeat(40)} ${'工'.repeat(23)}`;
    expect(Array.from(site)).toHaveLength(64);
    const [cn, o] = csrSubject(site, 'manage', 'encryption') as [{ CN: string[] }, { O: string[] }];
    expect(cn.CN[0]).toBe(`${'x'.repeat(40)} ${'工'.repeat(5)} manage encryption`);
    expect(Array.from(cn.CN[0]!)).toHaveLength(64);
    expect(o.O[0]).toBe(site);
    expect(csrSubject('x'.repeat(45), 'protect', 'encryption')).toEqual([
      { CN: [`${'x'.repeat(45)} protect encryption`] },
      { O: ['x'.repeat(45)] },
      { OU: ['protect'] },
    ]);
  });

  it('chooses usages by purpose and key type', () => {
    expect(keyUsagesFor('signing', 'EC')).toBe(KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation);
    expect(keyUsagesFor('encryption', 'RSA')).toBe(KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment);
    expect(keyUsagesFor('encryption', 'EC')).toBe(KeyUsageFlags.keyAgreement);
  });
});
