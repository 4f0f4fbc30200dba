import { expect } from 'vitest';
import type { TDeviceTemplateDocument, TEnforceApl, TPackage } from '@manifold/contract';
import { createMachineCredentials, type MachineCredentials } from '@manifold/machine-simulator';
import type { DevelopmentCa } from '../../src/crypto/development-ca.js';
import type { KeyType } from '../../src/crypto/key-pairs.js';
import { multipartForm, type FormFile } from './multipart.js';
import type { TestApp } from './test-app.js';
import { issue, testRoot } from './test-pki.js';
import { zipArchive } from './zip-archive.js';

export async function uploadForm(
  ctx: TestApp,
  url: string,
  token: string | undefined,
  fields: Record<string, string | FormFile>,
) {
  const { body, headers } = multipartForm(fields);
  return ctx.call('POST', url, { ...(token ? { token } : {}), body, headers });
}

/**
 * Provisions the test server through the API: key pairs, a test root uploaded as the trust
 * anchor, and signing and encryption certificates issued by that root. Answers the root (to
 * issue machine certificates) and the server's signing certificate.
 */
export async function provisionServer(
  ctx: TestApp,
  keyType: KeyType = 'EC',
): Promise<{ root: DevelopmentCa; signingCertificatePem: string }> {
  const token = await ctx.adminToken();
  const root = await testRoot(`Packages test root ${Math.random().toString(36).slice(2, 8)}`);
  const provisioned = await ctx.call('POST', '/ui/admin/provision', { token, body: { keyType } });
  expect(provisioned.statusCode, provisioned.body).toBe(200);
  const anchor = await uploadForm(ctx, '/ui/admin/upload/provision', token, {
    certificateType: 'trustAnchor',
    file: { filename: 'root.pem', content: root.certificatePem },
  });
  expect(anchor.statusCode, anchor.body).toBe(200);
  const csrs = (await ctx.call('GET', '/ui/admin/provision?csr=both', { token })).json<{
    signingCSR: string;
    encryptionCSR: string;
  }>();
  const signingCertificatePem = await issue(root, csrs.signingCSR);
  for (const [certificateType, pem] of [
    ['signing', signingCertificatePem],
    ['encryption', await issue(root, csrs.encryptionCSR)],
  ] as const) {
    const uploaded = await uploadForm(ctx, '/ui/admin/upload/provision', token, {
      certificateType,
      file: { filename: `${certificateType}.pem`, content: pem },
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
  }
  return { root, signingCertificatePem };
}

export async function createPackage(ctx: TestApp, overrides: Record<string, unknown> = {}): Promise<TPackage> {
  const response = await ctx.call('POST', '/ui/package/info', {
    token: await ctx.adminToken(),
    body: {
      designName: `Bracket ${Math.random().toString(36).slice(2, 8)}`,
      description: 'A test part',
      companyName: 'Acme',
      ...overrides,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TPackage>();
}

/** A valid template document with one parameter of each type. */
export function templateDocument(overrides: Partial<TDeviceTemplateDocument> = {}): TDeviceTemplateDocument {
  return {
    name: 'Printer X settings',
    description: 'Build settings of Printer X',
    target: { manufacturer: 'Acme', model: 'X1' },
    parameterVersion: '1.0',
    parameters: [
      {
        parameterId: 'bedTemperature',
        type: 'integer',
        units: 'C',
        low: 50,
        high: 110,
        resetValue: 60,
        adjust: 'INCREASE',
        encrypt: false,
        choicePresent: false,
        exclusive: false,
        required: true,
      },
      {
        parameterId: 'layerHeight',
        type: 'decimal',
        units: 'mm',
        low: 0.05,
        high: 0.3,
        valueList: [0.1],
        adjust: 'LOCK',
        encrypt: false,
        choicePresent: false,
        exclusive: true,
        required: false,
      },
      {
        parameterId: 'material',
        type: 'choice',
        choicePresent: true,
        choiceList: ['PLA', 'PETG'],
        choiceListEntryList: [{ value: 'PLA', text: [{ language: 'en_US', text: 'PLA' }] }, { value: 'PETG' }],
        valueList: ['PLA'],
        adjust: 'FREE',
        encrypt: false,
        exclusive: true,
        required: true,
        prompt: [{ id: 'p1', language: 'en_US', text: 'Choose the material', data: 'aGVsbG8=', size: 5 }],
      },
      {
        parameterId: 'note',
        type: 'string',
        adjust: 'FREE',
        encrypt: false,
        choicePresent: false,
        exclusive: false,
        required: false,
      },
      {
        parameterId: 'supports',
        type: 'boolean',
        resetValue: true,
        adjust: 'FREE',
        encrypt: false,
        choicePresent: false,
        exclusive: false,
        required: false,
      },
    ],
    ...overrides,
  };
}

export async function importTemplate(ctx: TestApp, document: unknown, dsiId?: string) {
  const content = typeof document === 'string' ? document : JSON.stringify(document);
  return uploadForm(ctx, '/ui/package/device-template/import', await ctx.adminToken(), {
    ...(dsiId ? { dsiId } : {}),
    file: { filename: 'template.json', content, contentType: 'application/json' },
  });
}

/** A tiny valid PNG (1×1). */
export const onePixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** A 3MF whose thumbnail relationship points at `Metadata/thumbnail.png`. */
export function threeMfWithThumbnail(thumbnail: Buffer = onePixelPng, target = '/Metadata/thumbnail.png'): Buffer {
  const rels =
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>' +
    `<Relationship Target="${target}" Id="rel1" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"/>` +
    '</Relationships>';
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>'), deflate: true },
    { name: '_rels/.rels', data: Buffer.from(rels), deflate: true },
    {
      name: '3D/3dmodel.model',
      data: Buffer.from('<model unit="millimeter"><resources/><build/></model>'.repeat(200)),
      deflate: true,
    },
    { name: 'Metadata/thumbnail.png', data: thumbnail },
  ]);
}

/** A machine of the tests: the simulator's credentials (keys, certificates, registration record). */
export type TestMachine = MachineCredentials;

/** A machine with keys and certificates issued by `root`, ready to register (the parameters of {@link templateDocument}). */
export function testMachine(root: DevelopmentCa, identity: Partial<TEnforceApl['deviceIdentity']> = {}): Promise<TestMachine> {
  return createMachineCredentials(root, { identity, parameters: templateDocument().parameters });
}
