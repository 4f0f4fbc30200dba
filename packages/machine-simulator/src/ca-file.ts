import fs from 'node:fs/promises';
import path from 'node:path';
import { createDevelopmentRootCa, type DevelopmentCa } from '@manifold/server/src/crypto/development-ca.js';
import { importPrivateKey, keyTypeOf } from '@manifold/server/src/crypto/key-pairs.js';

const block = (pem: string, label: RegExp) =>
  pem.match(new RegExp(`-----BEGIN ${label.source}-----[\\s\\S]+?-----END ${label.source}-----\\n?`, 'g')) ?? [];

/**
 * A CA file: PEM with the CA certificate and its private key (`PRIVATE KEY`, PKCS#8), the way
 * `writeCaFile` and `npm run demo` write it. The key never leaves the machine that holds the file.
 */
export async function readCaFile(file: string): Promise<DevelopmentCa> {
  const pem = await fs.readFile(file, 'utf8');
  const [certificatePem] = block(pem, /CERTIFICATE/);
  const [privateKeyPem] = block(pem, /PRIVATE KEY/);
  if (!certificatePem || !privateKeyPem) throw new Error(`${file}: expected a CERTIFICATE and a PRIVATE KEY in PEM`);
  return { certificatePem, privateKeyPem, keyType: keyTypeOf(importPrivateKey(privateKeyPem)) };
}

export async function writeCaFile(file: string, ca: DevelopmentCa): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${ca.certificatePem.trim()}\n${ca.privateKeyPem.trim()}\n`, { mode: 0o600 });
}

/** The CA file at `file`, made (a development root, EC) when there is none yet. */
export async function developmentCaFile(
  file: string,
  commonName = 'Manifold Machines Development CA (not for production)',
): Promise<{ ca: DevelopmentCa; created: boolean }> {
  try {
    return { ca: await readCaFile(file), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const ca = await createDevelopmentRootCa({ keyType: 'EC', commonName });
  await writeCaFile(file, ca);
  return { ca, created: true };
}
