/**
 * The server's development CA, for tests that need real certificates. Loaded by address so the
 * browser suite's type check (DOM lib) does not take in the server's node:crypto sources.
 */
export interface TestCa {
  keyType: 'RSA' | 'EC';
  certificatePem: string;
  privateKeyPem: string;
}

interface DevelopmentCaModule {
  createDevelopmentRootCa(options: { keyType: 'RSA' | 'EC'; commonName?: string }): Promise<TestCa>;
  signCsrWithDevelopmentCa(ca: TestCa, csrPem: string): Promise<string>;
}

const modulePath = new URL('../../apps/server/src/crypto/development-ca.ts', import.meta.url).href;

async function developmentCaModule(): Promise<DevelopmentCaModule> {
  return (await import(/* @vite-ignore */ modulePath)) as DevelopmentCaModule;
}

export async function createTestRootCa(keyType: 'RSA' | 'EC', commonName: string): Promise<TestCa> {
  return (await developmentCaModule()).createDevelopmentRootCa({ keyType, commonName });
}

export async function signCsr(ca: TestCa, csrPem: string): Promise<string> {
  return (await developmentCaModule()).signCsrWithDevelopmentCa(ca, csrPem);
}
