/**
 * The machine's side of the partner protocol, with no network: its keys and certificates, the
 * registration record, signed STP envelopes, the hash chain of its trace events, and reading a
 * signed authorization (signature, trust chain, recipient, wrapped content keys). The crypto is the
 * server's own (`apps/server/src/crypto`), so a machine and the server can never disagree on a byte.
 * The server's tests use this module as their machine (docs/simulator.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  stpSignedContent,
  type TCanonicalTraceEvent,
  type TDeviceParameter,
  type TEnforceApl,
  type TTraceEventKind,
} from '@manifold/contract';
import { verifyCertificateChain } from '@manifold/server/src/crypto/certificates.js';
import { createCsr } from '@manifold/server/src/crypto/csr.js';
import { signCsrWithDevelopmentCa, type DevelopmentCa } from '@manifold/server/src/crypto/development-ca.js';
import { certificateThumbprint, signDetachedJws } from '@manifold/server/src/crypto/jws.js';
import { generateKeyPair, type KeyType } from '@manifold/server/src/crypto/key-pairs.js';
import { parseXmlSafely, verifyXmlSignature, XMLDSIG_NS } from '@manifold/server/src/crypto/xml-signature.js';
import { canonicalJson } from '@manifold/server/src/lib/canonical-json.js';
import { canonicalEvent, eventHash, STP_EVENT_PATH } from '@manifold/server/src/modules/events/trace-event-format.js';

export { STP_EVENT_PATH };

/** A machine's keys and the registration record (`apl`) that carries its certificates. */
export interface MachineCredentials {
  apl: TEnforceApl;
  signingKeyPem: string;
  encryptionKeyPem: string;
  /**
   * The body of `/apl/registration/add`: the record stamped with `dateCreated` now and signed
   * (detached JWS over its canonical JSON); an `apl` given instead is signed as it is.
   */
  request(overrides?: { aplType?: string; apl?: unknown; signature?: string }): Promise<Record<string, unknown>>;
}

export interface MachineCredentialOptions {
  identity?: Partial<TEnforceApl['deviceIdentity']>;
  parameters?: TDeviceParameter[];
  parameterVersion?: string;
  keyType?: KeyType;
}

/**
 * New signing and encryption key pairs, a CSR for each (service `enforce`) issued by `ca` (a
 * network CA whose key this machine's maker holds: a CA file, or a development CA).
 */
export async function createMachineCredentials(
  ca: DevelopmentCa,
  options: MachineCredentialOptions = {},
): Promise<MachineCredentials> {
  const keyType = options.keyType ?? 'EC';
  const [signing, encryption] = await Promise.all([generateKeyPair(keyType), generateKeyPair(keyType)]);
  const suffix = randomBytes(4).toString('hex');
  const name = options.identity?.name ?? `Printer ${suffix}`;
  const certificate = async (purpose: 'signing' | 'encryption', privateKeyPem: string) =>
    signCsrWithDevelopmentCa(ca, await createCsr({ siteName: name, service: 'enforce', purpose, privateKeyPem }));
  const [signingCertificate, encryptionCertificate] = await Promise.all([
    certificate('signing', signing.privateKeyPem),
    certificate('encryption', encryption.privateKeyPem),
  ]);
  const apl: TEnforceApl = {
    deviceIdentity: {
      id: `machine-${suffix}`,
      name,
      serialNumber: `SN-${suffix}`,
      model: 'X1',
      family: 'X',
      manufacturer: 'Acme',
      deviceClass: 'printer',
      technology: 'FDM',
      ...options.identity,
    },
    parameterVersion: options.parameterVersion ?? '1.0',
    parameters: options.parameters ?? [],
    signingCertificate,
    encryptionCertificate,
  };
  return credentialsOf(apl, signing.privateKeyPem, encryption.privateKeyPem);
}

/** Credentials from a record and keys kept earlier (a machine's state directory). */
export function credentialsOf(apl: TEnforceApl, signingKeyPem: string, encryptionKeyPem: string): MachineCredentials {
  return {
    apl,
    signingKeyPem,
    encryptionKeyPem,
    async request(overrides = {}) {
      const body = overrides.apl ?? { ...apl, dateCreated: new Date().toISOString() };
      return {
        aplType: overrides.aplType ?? 'enforce',
        apl: body,
        signature: overrides.signature ?? (await signDetachedJws(canonicalJson(body), signingKeyPem)),
      };
    },
  };
}

export interface StpEnvelopeOptions {
  timestamp?: string;
  nonce?: string;
  /** Sign with this key instead of the machine's. */
  signingKeyPem?: string;
  deviceId?: string;
}

/**
 * A signed STP envelope for `path`: `{deviceId, timestamp, nonce, body, signature}`, the signature
 * a detached JWS over the canonical JSON of `{body, deviceId, nonce, path, timestamp}`.
 */
export async function stpEnvelope(
  signingKeyPem: string,
  deviceId: string,
  path: string,
  body: Record<string, unknown>,
  options: StpEnvelopeOptions = {},
) {
  const unsigned = {
    deviceId: options.deviceId ?? deviceId,
    timestamp: options.timestamp ?? new Date().toISOString(),
    nonce: options.nonce ?? randomBytes(16).toString('base64url'),
    body,
  };
  const signature = await signDetachedJws(
    canonicalJson(stpSignedContent(unsigned, path)),
    options.signingKeyPem ?? signingKeyPem,
  );
  return { ...unsigned, signature };
}

export type EventFields = Partial<Omit<TCanonicalTraceEvent, 'kind' | 'deviceId'>>;

/** A machine's side of the chain: each new event names the hash of the one before. */
export class EventChain {
  constructor(
    readonly deviceId: string,
    /** The hash of the machine's last event (null before its first). */
    public head: string | null = null,
  ) {}

  /** The next event of the chain (the head moves on). */
  next(kind: TTraceEventKind, fields: EventFields = {}): TCanonicalTraceEvent {
    const event = this.event(kind, { previousHash: this.head, ...fields });
    this.head = eventHash(event);
    return event;
  }

  /** An event that does not move the head (for gaps, forks and refusals). */
  event(kind: TTraceEventKind, fields: EventFields = {}): TCanonicalTraceEvent {
    return canonicalEvent(
      {
        eventId: randomUUID(),
        kind,
        occurredAt: new Date().toISOString(),
        authorizationId: null,
        jobId: null,
        quantity: null,
        previousHash: null,
        data: {},
        ...fields,
      },
      this.deviceId,
    );
  }

  /** The event's STP body: the canonical event less the deviceId (the envelope carries it). */
  static body(event: TCanonicalTraceEvent): Record<string, unknown> {
    const { deviceId: _deviceId, ...body } = event;
    return body;
  }

  /** The STP body of a batch signed as a whole: `{batch: [event body, …]}` (one signature covers them all). */
  static batchBody(events: TCanonicalTraceEvent[]): Record<string, unknown> {
    return { batch: events.map((event) => EventChain.body(event)) };
  }
}

/** One file of the authorized design as the signed authorization lists it. */
export interface AuthorizedFile {
  fileId: string;
  name: string;
  size: number;
  sha256: string;
  isPublic: boolean;
  /** The content key wrapped for this machine's encryption certificate (private files). */
  wrappedKey: string | null;
}

/** A device parameter in force, as the authorization states it. */
export interface AuthorizedParameter {
  parameterId: string;
  type: string;
  adjust: string | null;
  low: number | null;
  high: number | null;
  units: string | null;
  values: string[];
  resetValue: string | null;
  choices: string[];
}

/** What a machine reads from a verified authorization. */
export interface AuthorizationTerms {
  authorizationId: string;
  orderId: string;
  orderNumber: string;
  quantity: number;
  expiration: string | null;
  serialNumbers: { first: string; last: string; count: number } | null;
  design: { dsiId: string; dsiVersion: number; designName: string; digestValue: string; files: AuthorizedFile[] };
  deviceParameters: AuthorizedParameter[];
  /** The issuing server's signing certificate (from KeyInfo, checked against the trust anchors). */
  issuerCertificatePem: string;
}

/** An authorization the machine must not use; `reason` says why. */
export class AuthorizationRefused extends Error {
  constructor(
    readonly reason: 'untrustedSigner' | 'badSignature' | 'notForThisMachine' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

const certificatePemOf = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;

/**
 * Verifies a signed authorization the way a machine must: the signer's certificate (KeyInfo)
 * chains to one of `trustAnchors`, the enveloped XML signature verifies with it, and the target is
 * this machine (its deviceId and its encryption certificate's thumbprint). Answers the terms read
 * from the signed content only. Throws {@link AuthorizationRefused}.
 */
export function readAuthorization(
  xml: string,
  trust: { trustAnchors: string[]; deviceId: string; encryptionCertificatePem: string },
): AuthorizationTerms {
  let issuerCertificatePem: string;
  try {
    const keyInfo = parseXmlSafely(xml).getElementsByTagNameNS(XMLDSIG_NS, 'X509Certificate').item(0)?.textContent;
    if (!keyInfo) throw new Error('the signature names no certificate');
    issuerCertificatePem = certificatePemOf(keyInfo);
  } catch (error) {
    throw new AuthorizationRefused('malformed', `Not a signed authorization: ${(error as Error).message}`);
  }
  const chain = verifyCertificateChain({ leaf: issuerCertificatePem, trustAnchors: trust.trustAnchors });
  if (!chain.valid) throw new AuthorizationRefused('untrustedSigner', `The signer is not trusted: ${chain.description}`);
  let element;
  try {
    ({ element } = verifyXmlSignature(xml, issuerCertificatePem));
  } catch (error) {
    throw new AuthorizationRefused('badSignature', `The signature does not verify: ${(error as Error).message}`);
  }
  const first = (name: string, parent = element) => parent.getElementsByTagName(name).item(0);
  const text = (name: string) => first(name)?.textContent ?? null;
  const target = first('Target');
  const recipient = target ? first('RecipientCertificate', target)?.getAttribute('thumbprint') : undefined;
  if (target?.getAttribute('id') !== trust.deviceId || recipient !== certificateThumbprint(trust.encryptionCertificatePem)) {
    throw new AuthorizationRefused('notForThisMachine', 'The authorization is addressed to another machine or key');
  }
  const design = first('Design');
  const quantity = Number(text('Quantity'));
  const authorizationId = text('AuthorizationId');
  const orderId = text('OrderId');
  if (!design || !authorizationId || !orderId || !Number.isInteger(quantity)) {
    throw new AuthorizationRefused('malformed', 'The authorization lacks its id, order, quantity or design');
  }
  const files: AuthorizedFile[] = [];
  const fileNodes = design.getElementsByTagName('File');
  for (let i = 0; i < fileNodes.length; i += 1) {
    const node = fileNodes.item(i)!;
    files.push({
      fileId: node.getAttribute('fileId') ?? '',
      name: node.getAttribute('name') ?? '',
      size: Number(node.getAttribute('size')),
      sha256: node.getAttribute('sha256') ?? '',
      isPublic: node.getAttribute('public') === 'true',
      wrappedKey: first('WrappedKey', node)?.textContent ?? null,
    });
  }
  const deviceParameters: AuthorizedParameter[] = [];
  const parameterNodes = first('DeviceParameters')?.getElementsByTagName('Parameter');
  const numberOrNull = (value: string | null) => (value === null || value === '' ? null : Number(value));
  const texts = (parent: typeof element, name: string) => {
    const nodes = parent.getElementsByTagName(name);
    return Array.from({ length: nodes.length }, (_, i) => nodes.item(i)!.textContent ?? '');
  };
  for (let i = 0; i < (parameterNodes?.length ?? 0); i += 1) {
    const node = parameterNodes!.item(i)!;
    deviceParameters.push({
      parameterId: node.getAttribute('parameterId') ?? '',
      type: node.getAttribute('type') ?? 'string',
      adjust: node.getAttribute('adjust'),
      low: numberOrNull(node.getAttribute('low')),
      high: numberOrNull(node.getAttribute('high')),
      units: node.getAttribute('units'),
      values: texts(node, 'Value'),
      resetValue: first('ResetValue', node)?.textContent ?? null,
      choices: texts(node, 'Choice'),
    });
  }
  const serials = first('SerialNumbers');
  return {
    authorizationId,
    orderId,
    orderNumber: text('OrderNumber') ?? '',
    quantity,
    expiration: text('Expiration'),
    serialNumbers: serials
      ? {
          first: serials.getAttribute('first') ?? '',
          last: serials.getAttribute('last') ?? '',
          count: Number(serials.getAttribute('count')),
        }
      : null,
    design: {
      dsiId: design.getAttribute('dsiId') ?? '',
      dsiVersion: Number(design.getAttribute('dsiVersion')),
      designName: design.getAttribute('designName') ?? '',
      digestValue: text('DigestValue') ?? '',
      files,
    },
    deviceParameters,
    issuerCertificatePem,
  };
}

/**
 * The settings a job runs with: for each parameter in force, a value the authorization allows —
 * a locked or listed value, the reset value, a choice, or a number within [low, high] — so a job
 * never runs outside its licence. `random` in [0, 1) picks within ranges.
 */
export function jobSettings(parameters: AuthorizedParameter[], random: () => number = Math.random): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const parameter of parameters) {
    const name = parameter.parameterId.replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z]/.test(name)) continue;
    let value: string | undefined = parameter.values[0] ?? parameter.resetValue ?? parameter.choices[0];
    if (parameter.adjust !== 'LOCK' && parameter.low !== null && parameter.high !== null) {
      const span = parameter.high - parameter.low;
      const picked = parameter.low + span * random();
      value = parameter.type === 'integer' ? String(Math.round(picked)) : picked.toFixed(3);
    }
    if (value !== undefined) settings[`param_${name}`.slice(0, 64)] = value.slice(0, 1024);
  }
  return settings;
}
