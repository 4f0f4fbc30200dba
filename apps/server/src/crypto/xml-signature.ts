import { DOMParser, XMLSerializer, type Document, type Element, type Node } from '@xmldom/xmldom';
import { createHash, sign as signBytes, timingSafeEqual, verify as verifyBytes, type KeyObject } from 'node:crypto';
import { ExclusiveCanonicalization } from 'xml-crypto';
import { certificateMatchesPublicKey, parseCertificate } from './certificates.js';
import { CryptoError } from './crypto-errors.js';
import { importPrivateKey, keyTypeOf, type KeyType } from './key-pairs.js';
import { hasXmlForbidden } from '../lib/xml-text.js';
import '../lib/xmldom-regex-cache.js';

/**
 * Enveloped XML-DSig in one strict profile, the only one this server produces or accepts:
 *
 * - exactly one `ds:Signature`, a direct child of the document element, with exactly
 *   `SignedInfo`, `SignatureValue` and an optional `KeyInfo` (no `Object`);
 * - exactly one `Reference`, whose URI is `""` or `#<Id of the document element>` (that Id unique
 *   in the document), with exactly the transforms enveloped-signature then exclusive c14n;
 * - canonicalisation exclusive c14n without comments, digest SHA-256, signature RSA-SHA256
 *   (PKCS#1 v1.5) or ECDSA-SHA256 (r||s, as XML-DSig 1.1 and xmlsec1 expect), matching the key type
 *   of the trusted certificate; SHA-1 and everything else is refused.
 *
 * Verification uses only the certificate the caller trusts; the KeyInfo of the document is
 * ignored. So the signed element is always the whole document element, and a signature-wrapping
 * attack (moving the signed element and putting a forged one where the application reads) cannot
 * pass: the digest covers what the application reads.
 *
 * Decisions on what a parser could be fooled by:
 * - DOCTYPE and ENTITY declarations are refused before parsing (no DTD, no entities, ever).
 * - Comments inside the document element are refused. Exclusive c14n drops them, so
 *   `<user>admin<!---->.evil</user>` digests like `admin.evil` while a naive reader sees `admin`;
 *   refusing them is simpler than trusting every reader to concatenate text nodes.
 * - Processing instructions are refused anywhere (the XML declaration is allowed).
 * - {@link verifyXmlSignature} returns a fresh document parsed from the canonical bytes that were
 *   digested, so the caller reads exactly the signed content and nothing else.
 */
export const XMLDSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const SHA256_DIGEST = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const ECDSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256';

const SIGNATURE_METHOD: Record<KeyType, string> = { RSA: RSA_SHA256, EC: ECDSA_SHA256 };
const ID_ATTRIBUTES = ['Id', 'ID', 'id'];

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const PROCESSING_INSTRUCTION_NODE = 7;
const COMMENT_NODE = 8;
const DOCUMENT_TYPE_NODE = 10;

export interface XmlSigner {
  /** PKCS#8 PEM of the signing key. */
  privateKeyPem: string;
  /** The same key already imported (the server's own keys are imported once per process). */
  privateKey?: KeyObject;
  /** The signer's certificate, carried in KeyInfo/X509Data for the receiver's convenience. */
  certificatePem: string;
}

export interface VerifiedXml {
  /** A document parsed from the signed canonical bytes; it holds no Signature and no comments. */
  document: Document;
  /** Its document element: the signed content, the only thing a caller should read. */
  element: Element;
  /** The exact canonical XML that was digested. */
  canonicalXml: string;
  signatureMethod: string;
}

/** Signs the document element with an enveloped signature (Reference URI `""`). */
export function signXml(xml: string, signer: XmlSigner): string {
  // input is refused at the edge; this keeps any path that forgot from signing a document parsers reject
  if (hasXmlForbidden(xml)) throw new CryptoError('signatureStructure', 'The document holds characters XML cannot carry');
  const document = parseXmlSafely(xml);
  const root = documentElementOf(document);
  if (root.getElementsByTagNameNS(XMLDSIG_NS, 'Signature').length > 0) {
    throw new CryptoError('signatureStructure', 'The document is already signed');
  }
  assertNoHiddenContent(document);

  const privateKey = importPrivateKey(signer.privateKey ?? signer.privateKeyPem);
  const keyType = keyTypeOf(privateKey);
  const certificate = parseCertificate(signer.certificatePem);
  if (!certificateMatchesPublicKey(certificate, privateKey)) {
    throw new CryptoError('keyMismatch', 'The certificate does not belong to the signing key');
  }

  const digest = createHash('sha256').update(canonicalize(root), 'utf8').digest('base64');
  const ds = (name: string, attributes: Record<string, string> = {}, children: (Element | string)[] = []): Element => {
    const element = document.createElementNS(XMLDSIG_NS, `ds:${name}`);
    for (const [attribute, value] of Object.entries(attributes)) element.setAttribute(attribute, value);
    for (const child of children) {
      element.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return element;
  };

  const signedInfo = ds('SignedInfo', {}, [
    ds('CanonicalizationMethod', { Algorithm: EXC_C14N }),
    ds('SignatureMethod', { Algorithm: SIGNATURE_METHOD[keyType] }),
    ds('Reference', { URI: '' }, [
      ds('Transforms', {}, [ds('Transform', { Algorithm: ENVELOPED_SIGNATURE }), ds('Transform', { Algorithm: EXC_C14N })]),
      ds('DigestMethod', { Algorithm: SHA256_DIGEST }),
      ds('DigestValue', {}, [digest]),
    ]),
  ]);
  const signature = ds('Signature', {}, [signedInfo]);
  signature.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:ds', XMLDSIG_NS);
  root.appendChild(signature);

  const signatureValue = signBytes('sha256', Buffer.from(canonicalize(signedInfo), 'utf8'), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  }).toString('base64');
  signature.appendChild(ds('SignatureValue', {}, [signatureValue]));
  signature.appendChild(
    ds('KeyInfo', {}, [ds('X509Data', {}, [ds('X509Certificate', {}, [certificate.node.raw.toString('base64')])])]),
  );

  const signed = new XMLSerializer().serializeToString(document);
  // what is handed out must verify as a receiver would check it
  checkXmlSignature(signed, signer.certificatePem);
  return signed;
}

/**
 * Verifies an enveloped signature against the one certificate the caller trusts for this sender
 * and returns the signed content. Throws a {@link CryptoError}: `forbiddenXmlConstruct`,
 * `malformed`, `signatureStructure`, `unsupportedAlgorithm`, `badSignature` or `digestMismatch`.
 */
export function verifyXmlSignature(xml: string, trustedCertificatePem: string): VerifiedXml {
  const { canonicalXml, signatureMethod } = checkXmlSignature(xml, trustedCertificatePem);
  const signedDocument = parseXmlSafely(canonicalXml);
  return { document: signedDocument, element: documentElementOf(signedDocument), canonicalXml, signatureMethod };
}

/** {@link verifyXmlSignature} up to the canonical bytes that were digested (without parsing them again). */
function checkXmlSignature(xml: string, trustedCertificatePem: string): Pick<VerifiedXml, 'canonicalXml' | 'signatureMethod'> {
  const trustedKey = parseCertificate(trustedCertificatePem).node.publicKey;
  const keyType = keyTypeOf(trustedKey);
  const document = parseXmlSafely(xml);
  const root = documentElementOf(document);
  assertNoHiddenContent(document);

  const signatures = document.getElementsByTagNameNS(XMLDSIG_NS, 'Signature');
  if (signatures.length !== 1) {
    throw new CryptoError('signatureStructure', `Expected exactly one Signature, found ${signatures.length}`);
  }
  const signature = signatures.item(0) as Element;
  if (signature.parentNode !== root) {
    throw new CryptoError('signatureStructure', 'The Signature is not a child of the document element');
  }

  const [signedInfo, signatureValue] = expectChildren(signature, [
    ['SignedInfo', 'SignatureValue'],
    ['SignedInfo', 'SignatureValue', 'KeyInfo'],
  ]);
  const [c14nMethod, signatureMethod, reference] = expectChildren(signedInfo, [
    ['CanonicalizationMethod', 'SignatureMethod', 'Reference'],
  ]);
  assertAlgorithm(c14nMethod, [EXC_C14N], 'canonicalisation');
  const method = assertAlgorithm(signatureMethod, [RSA_SHA256, ECDSA_SHA256], 'signature');
  if (method !== SIGNATURE_METHOD[keyType]) {
    throw new CryptoError('unsupportedAlgorithm', `Signature method ${method} does not fit the trusted ${keyType} certificate`);
  }
  assertReferencesRoot(reference, root, document);
  const expectedDigest = checkReference(reference);

  const signatureBytes = decodeBase64(textOf(signatureValue), 'SignatureValue');
  const signedInfoBytes = Buffer.from(canonicalize(signedInfo), 'utf8');
  if (!verifySignatureValue(signedInfoBytes, signatureBytes, trustedKey)) {
    throw new CryptoError('badSignature', 'The signature does not verify with the trusted certificate');
  }

  root.removeChild(signature);
  const canonicalXml = canonicalize(root);
  const actualDigest = createHash('sha256').update(canonicalXml, 'utf8').digest();
  if (actualDigest.length !== expectedDigest.length || !timingSafeEqual(actualDigest, expectedDigest)) {
    throw new CryptoError('digestMismatch', 'The signed content was changed after signing');
  }

  return { canonicalXml, signatureMethod: method };
}

/**
 * Parses XML with no DTD and no entities; any parser warning or error is `malformed`, except
 * xmldom's notice of U+FFFD: the replacement character is legal XML text (people type it, and
 * it must survive a signed round trip).
 */
export function parseXmlSafely(xml: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new CryptoError('forbiddenXmlConstruct', 'DOCTYPE and ENTITY declarations are not allowed');
  }
  let document: Document;
  try {
    document = new DOMParser({
      onError: (level, message) => {
        if (level === 'warning' && message.startsWith('Unicode replacement character detected')) return;
        throw new Error(`${level}: ${message}`);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (cause) {
    throw new CryptoError('malformed', 'Not well-formed XML', { cause });
  }
  if (document.doctype) throw new CryptoError('forbiddenXmlConstruct', 'DOCTYPE is not allowed');
  return document;
}

function documentElementOf(document: Document): Element {
  const root = document.documentElement;
  if (!root) throw new CryptoError('malformed', 'The XML has no document element');
  return root;
}

function canonicalize(element: Element): string {
  return new ExclusiveCanonicalization().process(element, {});
}

/** Refuses comments inside the document element and processing instructions anywhere. */
function assertNoHiddenContent(document: Document): void {
  const visit = (node: Node, insideRoot: boolean): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === COMMENT_NODE && insideRoot) {
        throw new CryptoError('forbiddenXmlConstruct', 'Comments are not allowed inside signed content');
      }
      if (child.nodeType === PROCESSING_INSTRUCTION_NODE && child.nodeName !== 'xml') {
        throw new CryptoError('forbiddenXmlConstruct', 'Processing instructions are not allowed');
      }
      if (child.nodeType === DOCUMENT_TYPE_NODE) throw new CryptoError('forbiddenXmlConstruct', 'DOCTYPE is not allowed');
      if (child.nodeType === ELEMENT_NODE) visit(child, true);
    }
  };
  visit(document, false);
}

/**
 * The ds element children of `parent` when their local names are exactly one of `shapes`;
 * anything else (foreign elements, non-blank text, missing, extra or reordered children) is
 * `signatureStructure`. The first shape must be the shortest: its
 * length is how many elements the caller may rely on.
 */
function expectChildren<const Shapes extends readonly (readonly string[])[]>(
  parent: Element,
  shapes: Shapes,
): Elements<Shapes[0]['length']> {
  const children: Element[] = [];
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE && (child.nodeValue ?? '').trim() === '') continue;
    if (child.nodeType !== ELEMENT_NODE) {
      throw new CryptoError('signatureStructure', `Unexpected content in ${parent.localName}`);
    }
    const element = child as Element;
    if (element.namespaceURI !== XMLDSIG_NS) {
      throw new CryptoError('signatureStructure', `Unexpected element ${element.nodeName} in ${parent.localName}`);
    }
    children.push(element);
  }
  const names = children.map((child) => child.localName).join(',');
  if (!shapes.some((shape) => shape.join(',') === names)) {
    const expected = shapes.map((shape) => shape.join(', ') || 'nothing').join(' or ');
    throw new CryptoError('signatureStructure', `${parent.localName} must hold ${expected}; found ${names || 'nothing'}`);
  }
  return children as Elements<Shapes[0]['length']>;
}

/** A tuple of `Count` elements: the children every accepted shape has at least. */
type Elements<Count extends number, Found extends Element[] = []> = Found['length'] extends Count
  ? Found
  : Elements<Count, [...Found, Element]>;

function assertAlgorithm(element: Element, allowed: string[], what: string): string {
  const algorithm = element.getAttribute('Algorithm') ?? '';
  if (!allowed.includes(algorithm)) {
    throw new CryptoError('unsupportedAlgorithm', `The ${what} algorithm ${algorithm || '(none)'} is not allowed`);
  }
  expectChildren(element, [[]]);
  return algorithm;
}

function assertReferencesRoot(reference: Element, root: Element, document: Document): void {
  if (!reference.hasAttribute('URI')) throw new CryptoError('signatureStructure', 'The Reference has no URI');
  const uri = reference.getAttribute('URI') ?? '';
  if (uri === '') return;
  const rootId = ID_ATTRIBUTES.map((name) => root.getAttribute(name)).find((value) => value);
  if (!rootId || uri !== `#${rootId}`) {
    throw new CryptoError('signatureStructure', `The Reference URI ${uri} does not point at the document element`);
  }
  const all = document.getElementsByTagName('*');
  let holders = 0;
  for (let index = 0; index < all.length; index += 1) {
    const element = all.item(index) as Element;
    if (ID_ATTRIBUTES.some((name) => element.getAttribute(name) === rootId)) holders += 1;
  }
  if (holders !== 1) throw new CryptoError('signatureStructure', `The Id ${rootId} is not unique in the document`);
}

/** Checks transforms and digest method of the Reference and returns the expected digest. */
function checkReference(reference: Element): Buffer {
  const [transforms, digestMethod, digestValue] = expectChildren(reference, [['Transforms', 'DigestMethod', 'DigestValue']]);
  const transformList = expectChildren(transforms, [['Transform', 'Transform']]);
  const algorithms = transformList.map((transform) => transform.getAttribute('Algorithm'));
  if (algorithms[0] !== ENVELOPED_SIGNATURE || algorithms[1] !== EXC_C14N) {
    throw new CryptoError('unsupportedAlgorithm', 'Transforms must be enveloped-signature then exclusive c14n');
  }
  for (const transform of transformList) assertAlgorithm(transform, [ENVELOPED_SIGNATURE, EXC_C14N], 'transform');
  assertAlgorithm(digestMethod, [SHA256_DIGEST], 'digest');
  const digest = decodeBase64(textOf(digestValue), 'DigestValue');
  if (digest.length !== 32) throw new CryptoError('malformed', 'DigestValue is not a SHA-256 digest');
  return digest;
}

function verifySignatureValue(data: Buffer, signatureValue: Buffer, key: KeyObject): boolean {
  try {
    return verifyBytes('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signatureValue);
  } catch {
    return false;
  }
}

function textOf(element: Element): string {
  let text = '';
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== TEXT_NODE && child.nodeType !== CDATA_SECTION_NODE) {
      throw new CryptoError('signatureStructure', `${element.localName} must hold text only`);
    }
    text += child.nodeValue ?? '';
  }
  return text;
}

function decodeBase64(text: string, what: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new CryptoError('malformed', `${what} is not base64`);
  return Buffer.from(compact, 'base64');
}
