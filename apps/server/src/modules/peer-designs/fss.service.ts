import { createHash, randomBytes } from 'node:crypto';
import {
  type TDesignReceived,
  type TFssPayload,
  type TFssRegisterRequestResponse,
  type TRegistrationState,
  ZFssDeleteClaims,
  ZFssOrderClaims,
  ZFssRegisterClaims,
  ZFssUploadTokenClaims,
} from '@manifold/contract';
import type { z } from 'zod';
import { parseCertificateBundle } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { encryptForCertificate } from '../../crypto/design-keys.js';
import { signDetachedJws } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import { canonicalJson, MAX_NESTING, nestsDeeperThan } from '../../lib/canonical-json.js';
import { memoized } from '../../lib/memo.js';
import { isoNow } from '../../lib/time.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';
import type { OrdersService } from '../licensing/orders.service.js';
import type { IncomingFiles } from '../outbox/peer-messages.service.js';
import type { PackagesService } from '../packages/packages.service.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import type { ServerSettings } from '../settings/server-settings.js';
import { checkSignedRecently, parseApl, validSigningCertificate, verifyAplSignature } from '../registrations/apl-checks.js';
import type { PeerRegistrationsService } from '../registrations/peer-registrations.service.js';
import {
  ProtectRegistrationsRepository,
  type ProtectRegistrationRow,
} from '../registrations/protect-registrations.repository.js';
import type { ProtectRegistrationsService } from '../registrations/protect-registrations.service.js';
import type { DesignPackages } from './design-packages.js';
import { FssRepository } from './fss.repository.js';

/** How long an upload token from `/fss/getUploadToken` lasts. */
export const FSS_UPLOAD_TOKEN_SECONDS = 15 * 60;

const decryptError = (description: string) => new AppError('fssPayloadDecryptError', { field: 'payload', description });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A Protect's stored certificate chain, parsed once per chain. */
const storedChain = memoized(parseCertificateBundle);

/** A payload opened: its claims (not yet trusted) and the detached JWS over their canonical JSON. */
interface Opened {
  claims: Record<string, unknown>;
  signature: string;
}

/**
 * The FSS calls of a design owner's Protect (docs/peer-network.md#the-fss-calls). The Protect
 * learns this instance's certificates with token1 (`register-request`), registers with the token
 * pair (`register`), and once an admin approved it places orders, gets upload tokens to publish
 * designs at `/mpf/design`, and deletes designs it published. Every `payload` both ways is a
 * compact JWE for the receiver's encryption certificate of a compact JWS by the sender's signing
 * key over the canonical JSON of the claims; claims carry a timestamp (±5 minutes) and a nonce
 * used once.
 */
export class FssService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
    private readonly serverSettings: ServerSettings,
    private readonly registrations: PeerRegistrationsService,
    private readonly protects: ProtectRegistrationsService,
    private readonly orders: OrdersService,
    private readonly packages: PackagesService,
    private readonly designs: DesignPackages,
  ) {}

  private protectRows(): ProtectRegistrationsRepository {
    return new ProtectRegistrationsRepository(this.database.db);
  }

  async registerRequest(token: string): Promise<TFssRegisterRequestResponse> {
    const row = await this.protectRows().findByToken1(token);
    if (!row) throw new AppError('fssTokenNotFound', { field: 'token' });
    const [signing, encryption, settings] = await Promise.all([
      this.credentials.identity('signing'),
      this.credentials.identity('encryption'),
      this.serverSettings.serverConfig(),
    ]);
    return {
      protectId: row.token1,
      siteName: settings.serverSiteName,
      serverUrl: settings.serverUrl,
      signingCertificate: signing.chainPem,
      encryptionCertificate: encryption.chainPem,
      registrationState: row.registration_state as TRegistrationState,
      registered: row.signing_certificate !== null,
    };
  }

  async register(input: TFssPayload): Promise<TFssPayload> {
    const opened = await this.open(input.payload);
    const claims = parseApl(ZFssRegisterClaims, opened.claims, 'payload');
    checkSignedRecently(claims.timestamp, 'payload.timestamp');
    const recipient = parseCertificateBundle(claims.encryptionCertificate)[0]?.pem;
    if (!recipient) throw decryptError('payload.encryptionCertificate holds no PEM certificate');
    await this.assertCanSeal(recipient);
    const registered = await this.protects.receive({ aplType: 'protect', apl: opened.claims, signature: opened.signature });
    return this.seal(recipient, claims.nonce, { ...registered });
  }

  async order(input: TFssPayload, sourceIp: string): Promise<TFssPayload> {
    const { protect, claims, recipient } = await this.authenticate(input, ZFssOrderClaims);
    const { orderId } = await this.orders.add(claims.authorizationAuthorizedPolicyList, {
      source: 'protect',
      actor: actorOf(protect),
      sourceIp,
    });
    return this.seal(recipient, claims.nonce, { orderId });
  }

  async uploadToken(input: TFssPayload): Promise<TFssPayload> {
    const { protect, claims, recipient } = await this.authenticate(input, ZFssUploadTokenClaims);
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = isoNow(new Date(now.getTime() + FSS_UPLOAD_TOKEN_SECONDS * 1000));
    await new FssRepository(this.database.db).insertUploadToken({
      token_hash: sha256(token),
      protect_id: protect.id,
      expires_at: expiresAt,
      used_at: null,
      created_at: isoNow(now),
    });
    return this.seal(recipient, claims.nonce, { token, expiresAt });
  }

  /** Deletes a design package this Protect published (another's, or none: `packageNotPresent`). */
  async delete(input: TFssPayload, sourceIp: string): Promise<TFssPayload> {
    const { protect, claims, recipient } = await this.authenticate(input, ZFssDeleteClaims);
    const owner = await new FssRepository(this.database.db).packageCreator(claims.dsiId);
    if (owner !== actorOf(protect)) throw new AppError('packageNotPresent', { field: 'payload.dsiId' });
    await this.packages.delete({ dsiId: claims.dsiId }, { username: actorOf(protect), sourceIp });
    return this.seal(recipient, claims.nonce, { dsiId: claims.dsiId, deleted: true });
  }

  /**
   * `/mpf/design` from a Protect: the upload token (spent once, only when the design is stored)
   * names the Protect, which must still be approved and whose registered signing chain must still
   * be valid (`registrationSignatureInvalid`, as its FSS calls); the package is checked like one
   * from a peer. A refusal stores nothing and leaves the token unspent.
   */
  async publishDesign(
    token: string,
    design: string | undefined,
    files: IncomingFiles,
    sourceIp: string,
  ): Promise<TDesignReceived> {
    const tokens = new FssRepository(this.database.db);
    const tokenHash = sha256(token);
    const grant = await tokens.uploadToken(tokenHash);
    if (!grant || grant.used_at !== null || grant.expires_at <= isoNow())
      throw new AppError('fssTokenNotFound', { field: 'token' });
    const protect = await this.protectRows().find(grant.protect_id);
    if (!protect?.signing_certificate) throw new AppError('fssTokenNotFound', { field: 'token' });
    assertApproved(protect);
    // the token stands for the Protect's signing key: once its certificate has expired (or is not
    // valid yet) it publishes nothing, as it signs no FSS call
    validSigningCertificate(storedChain(protect.signing_certificate), 'Protect');
    // held to what a JSON body is: one leading byte order mark skipped, NUL and the like refused
    const body = parseCarryableJson(
      design ?? '',
      'design',
      () =>
        new AppError('registrationExchangeInvalidApl', {
          field: 'design',
          description: 'Send the field design (JSON) before the files',
        }),
    );
    const stored = await this.designs.store(body, files, 'design');
    let applied = false;
    try {
      const answer = await this.database.transaction(async (trx) => {
        if (!(await new FssRepository(trx).spendUploadToken(tokenHash, isoNow()))) {
          throw new AppError('fssTokenNotFound', { field: 'token', description: 'The upload token was used meanwhile' });
        }
        return this.designs.apply(trx, stored.value, { actor: actorOf(protect), sourceIp, from: { protectId: protect.token1 } });
      });
      applied = true;
      return answer;
    } finally {
      await stored.done(applied);
    }
  }

  /**
   * Opens a payload, finds its Protect (`fssTokenNotFound`), checks the signature with its registered
   * signing certificate, every certificate of that chain valid now (`registrationSignatureInvalid`),
   * approval, time (`registrationExchangeInvalidApl` on `payload.timestamp`) and nonce.
   */
  private async authenticate<T extends z.ZodType<{ protectId: string; timestamp: string; nonce: string }>>(
    input: TFssPayload,
    schema: T,
  ): Promise<{
    protect: ProtectRegistrationRow & { signing_certificate: string; encryption_certificate: string };
    claims: z.infer<T>;
    recipient: string;
  }> {
    const opened = await this.open(input.payload);
    const claims = parseApl(schema, opened.claims, 'payload');
    const protect = await this.protectRows().findByToken1(claims.protectId);
    if (!protect?.signing_certificate || !protect.encryption_certificate) {
      throw new AppError('fssTokenNotFound', { field: 'payload.protectId' });
    }
    await verifyAplSignature(
      { aplType: 'protect', apl: opened.claims, signature: opened.signature },
      validSigningCertificate(storedChain(protect.signing_certificate), 'Protect'),
    );
    assertApproved(protect);
    checkSignedRecently(claims.timestamp, 'payload.timestamp');
    const recipient = parseCertificateBundle(protect.encryption_certificate)[0]!.pem;
    await this.assertCanSeal(recipient);
    await this.database.transaction((trx) => this.registrations.rememberNonce(trx, protect.id, claims.nonce));
    return {
      protect: protect as ProtectRegistrationRow & { signing_certificate: string; encryption_certificate: string },
      claims,
      recipient,
    };
  }

  /** Decrypts with this instance's encryption key; the plaintext must be a compact JWS of JSON claims. */
  private async open(payload: string): Promise<Opened> {
    let plaintext: Buffer;
    try {
      plaintext = await this.credentials.decrypt(payload);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw decryptError(`The payload does not decrypt with this instance's encryption key: ${error.message}`);
    }
    const parts = plaintext.toString('utf8').split('.');
    if (parts.length !== 3 || !parts[0] || !parts[1] || !parts[2])
      throw decryptError('The decrypted payload is not a compact JWS');
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      throw decryptError('The signed content is not JSON');
    }
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
      throw decryptError('The signed content is not a JSON object');
    // the canonical form below is written by a recursive walk
    if (nestsDeeperThan(claims, MAX_NESTING)) throw decryptError('The signed content nests too deeply');
    if (Buffer.from(parts[1], 'base64url').toString('utf8') !== canonicalJson(claims)) {
      throw decryptError('The signed content is not the canonical JSON of its claims');
    }
    return { claims: claims as Record<string, unknown>, signature: `${parts[0]}..${parts[2]}` };
  }

  /** Refuses before acting when no answer could be encrypted for the Protect (`fssPayloadEncryptError`). */
  private async assertCanSeal(recipient: string): Promise<void> {
    try {
      await encryptForCertificate(Buffer.alloc(0), recipient);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('fssPayloadEncryptError', {
        field: 'payload',
        description: `No answer can be encrypted for the Protect's encryption certificate: ${error.message}`,
      });
    }
  }

  /** The answer: claims `{timestamp, inReplyTo, result}` signed by this instance and encrypted for the Protect. */
  private async seal(recipient: string, inReplyTo: string, result: Record<string, unknown>): Promise<TFssPayload> {
    const { privateKey, certificatePem } = await this.credentials.signingIdentity();
    const content = canonicalJson({ timestamp: isoNow(), inReplyTo, result });
    const [header, , signature] = (await signDetachedJws(content, privateKey, { certificatePem })).split('.');
    const jws = `${header}.${Buffer.from(content, 'utf8').toString('base64url')}.${signature}`;
    try {
      return { payload: await encryptForCertificate(Buffer.from(jws, 'utf8'), recipient) };
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('fssPayloadEncryptError', { field: 'payload', description: error.message });
    }
  }
}

/** How a Protect acts in audit records, orders and the packages it published. */
const actorOf = (protect: ProtectRegistrationRow) => `protect:${protect.token1}`;

function assertApproved(protect: ProtectRegistrationRow): void {
  if (protect.registration_state !== 'Approved') {
    throw new AppError('registrationNotApproved', {
      field: 'payload.protectId',
      description: `The Protect registration is ${protect.registration_state}`,
    });
  }
}
