import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { TFssRegisterRequestResponse, TPackageManifest } from '@manifold/contract';
import { parseCertificateBundle } from '../../src/crypto/certificates.js';
import { createCsr } from '../../src/crypto/csr.js';
import {
  decryptWithKey,
  encryptContent,
  encryptForCertificate,
  generateContentKey,
  wrapContentKey,
} from '../../src/crypto/design-keys.js';
import type { DevelopmentCa } from '../../src/crypto/development-ca.js';
import { signDetachedJws, verifyDetachedJws } from '../../src/crypto/jws.js';
import { generateKeyPair } from '../../src/crypto/key-pairs.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { multipartEntries } from './multipart.js';
import { issue } from './test-pki.js';

/** An answer of the instance: status, body text and JSON. */
export interface ProtectAnswer {
  statusCode: number;
  body: string;
  json(): Record<string, unknown>;
}

/** How the Protect reaches an instance: a POST with a JSON body, or a multipart form. */
export type ProtectTransport = (path: string, body: unknown, headers?: Record<string, string>) => Promise<ProtectAnswer>;

/** A file the Protect publishes: private files are encrypted with a content key wrapped for the instance. */
export interface DesignFileInput {
  fileName: string;
  bytes: Buffer;
  isPublic: boolean;
}

/**
 * A design owner's Protect as the tests play it, using only the FSS calls and `/mpf/design`
 * (docs/peer-network.md#the-fss-calls): its own keys and certificates from the test root,
 * payloads signed (compact JWS over the canonical JSON of the claims) and encrypted for the
 * instance's encryption certificate (compact JWE), answers decrypted and checked against the
 * instance's signing certificate.
 */
export class TestProtect {
  /** What `register-request` answered: the instance's certificates. */
  instance: TFssRegisterRequestResponse | undefined;
  token1 = '';

  private constructor(
    private readonly transport: ProtectTransport,
    readonly name: string,
    readonly signingKeyPem: string,
    readonly signingCertificate: string,
    readonly encryptionKeyPem: string,
    readonly encryptionCertificate: string,
  ) {}

  static async create(transport: ProtectTransport, root: DevelopmentCa, name = 'Design Owner Protect'): Promise<TestProtect> {
    const signing = await generateKeyPair('EC');
    const encryption = await generateKeyPair('EC');
    const certificate = async (purpose: 'signing' | 'encryption', privateKeyPem: string) =>
      issue(root, await createCsr({ siteName: name, service: 'protect', purpose, privateKeyPem }));
    return new TestProtect(
      transport,
      name,
      signing.privateKeyPem,
      await certificate('signing', signing.privateKeyPem),
      encryption.privateKeyPem,
      await certificate('encryption', encryption.privateKeyPem),
    );
  }

  /** `POST /fss/protect/register-request {token}`: keeps the instance's certificates. */
  async registerRequest(token1: string): Promise<ProtectAnswer> {
    const answer = await this.transport('/fss/protect/register-request', { token: token1 });
    if (answer.statusCode === 200) {
      this.instance = answer.json() as unknown as TFssRegisterRequestResponse;
      this.token1 = token1;
    }
    return answer;
  }

  /** The claims of a call, signed and encrypted for the instance. */
  async seal(claims: Record<string, unknown>, options: { signingKeyPem?: string; recipient?: string } = {}): Promise<string> {
    const content = canonicalJson(claims);
    const [header, , signature] = (await signDetachedJws(content, options.signingKeyPem ?? this.signingKeyPem)).split('.');
    const jws = `${header}.${Buffer.from(content).toString('base64url')}.${signature}`;
    const recipient = options.recipient ?? parseCertificateBundle(this.instance!.encryptionCertificate)[0]!.pem;
    return encryptForCertificate(Buffer.from(jws), recipient);
  }

  /** An answer's `payload`: decrypted with our key, its signature checked with the instance's signing certificate. */
  async open(payload: string): Promise<{ timestamp: string; inReplyTo: string; result: Record<string, unknown> }> {
    const jws = (await decryptWithKey(payload, this.encryptionKeyPem)).toString('utf8');
    const [header, content, signature] = jws.split('.');
    const signer = parseCertificateBundle(this.instance!.signingCertificate)[0]!.pem;
    await verifyDetachedJws(`${header}..${signature}`, Buffer.from(content!, 'base64url'), signer);
    return JSON.parse(Buffer.from(content!, 'base64url').toString('utf8')) as never;
  }

  claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { protectId: this.token1, timestamp: new Date().toISOString(), nonce: randomUUID(), ...extra };
  }

  /** Posts claims to an FSS call; on 200 the answer's result. */
  async call(
    path: string,
    claims: Record<string, unknown>,
  ): Promise<{ answer: ProtectAnswer; result?: Record<string, unknown> }> {
    const answer = await this.transport(path, { payload: await this.seal(claims) });
    if (answer.statusCode !== 200) return { answer };
    const opened = await this.open(answer.json().payload as string);
    if (opened.inReplyTo !== claims.nonce) throw new Error('the answer is not for this call');
    return { answer, result: opened.result };
  }

  /** `POST /fss/protect/register` with the token pair. */
  register(token2: string, overrides: Record<string, unknown> = {}) {
    return this.call('/fss/protect/register', {
      token1: this.token1,
      token2,
      name: this.name,
      signingCertificate: this.signingCertificate,
      encryptionCertificate: this.encryptionCertificate,
      timestamp: new Date().toISOString(),
      nonce: randomUUID(),
      ...overrides,
    });
  }

  order(policy: unknown) {
    return this.call('/fss/order', this.claims({ authorizationAuthorizedPolicyList: policy }));
  }

  uploadToken() {
    return this.call('/fss/getUploadToken', this.claims());
  }

  deleteDesign(dsiId: string) {
    return this.call('/fss/delete', this.claims({ dsiId }));
  }

  /**
   * A design revision built and signed here: the manifest (manifest version 1) over the files,
   * private files encrypted with their own content key wrapped for the instance.
   */
  async buildDesign(files: DesignFileInput[], designName = 'Protected bracket') {
    const recipient = parseCertificateBundle(this.instance!.encryptionCertificate)[0]!.pem;
    const dsiId = randomUUID();
    const entries = [];
    const parts: { fileId: string; wrappedKey: string | null; stored: Buffer; fileName: string }[] = [];
    for (const file of files) {
      const fileId = randomUUID();
      const contentKey = file.isPublic ? undefined : generateContentKey();
      entries.push({
        fileId,
        fileName: file.fileName,
        contentType: 'application/octet-stream',
        size: file.bytes.length,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        isPublic: file.isPublic,
      });
      parts.push({
        fileId,
        fileName: file.fileName,
        wrappedKey: contentKey ? await wrapContentKey(contentKey, recipient) : null,
        stored: contentKey ? encryptContent(file.bytes, contentKey) : file.bytes,
      });
    }
    const manifest: TPackageManifest = {
      manifestVersion: 1,
      dsiId,
      dsiVersion: 1,
      packageVersion: 1,
      designName,
      description: 'Published by a Protect',
      companyName: 'Design Owner Inc',
      multiPlaten: false,
      dateCreated: new Date().toISOString(),
      manageUrl: 'https://protect.example',
      files: entries,
      steps: [],
      deviceTemplates: [],
    };
    const text = canonicalJson(manifest);
    const design = {
      revisionId: randomUUID(),
      manifest: text,
      manifestSignature: await signDetachedJws(text, this.signingKeyPem),
      signerCertificate: this.signingCertificate,
      files: parts.map(({ fileId, wrappedKey }) => ({ fileId, wrappedKey })),
    };
    return { design, parts, digest: createHash('sha256').update(text).digest('hex'), dsiId };
  }

  /**
   * `POST /mpf/design` with an upload token: fields `token`, `design` (its JSON, or the `text` given
   * instead), then the files.
   */
  publish(
    token: string,
    design: unknown,
    parts: { stored: Buffer; fileName: string }[],
    text = JSON.stringify(design),
  ): Promise<ProtectAnswer> {
    const form = multipartEntries([
      ['token', token],
      ['design', text],
      ...parts.map(
        (part) =>
          ['file', { filename: part.fileName, content: part.stored, contentType: 'application/octet-stream' }] as [
            string,
            { filename: string; content: Buffer; contentType: string },
          ],
      ),
    ]);
    return this.transport('/mpf/design', form.body, form.headers);
  }
}

/** Random bytes standing in for a design file. */
export const designBytes = (size: number) => randomBytes(size);
