import type { Element } from '@xmldom/xmldom';
import { beforeAll, describe, expect, it } from 'vitest';
import { pathOf, runTool, withTempFiles } from './crypto-test-helpers.js';
import { createCsr } from './csr.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa, type DevelopmentCa } from './development-ca.js';
import { generateKeyPair, type KeyType } from './key-pairs.js';
import { parseXmlSafely, signXml, verifyXmlSignature, type XmlSigner } from './xml-signature.js';

const AUTHORIZATION = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<Authorization xmlns="urn:manifold:authorization" xmlns:x="urn:manifold:ext" Id="auth-1" orderId="A1">',
  '  <quantity>5</quantity>',
  '  <licensee>admin@example.com.evil.example</licensee>',
  '  <x:note kind="plain">fish &amp; chips &lt;3</x:note>',
  '  <empty/>',
  '</Authorization>',
].join('\n');

interface Fixture {
  ca: DevelopmentCa;
  signer: XmlSigner;
}

function xmlsec1Verify(signed: string, trust: { certificatePem: string; mode: 'pubkey-cert' | 'trusted' }) {
  return withTempFiles({ 'signed.xml': signed, 'trust.pem': trust.certificatePem }, (paths) =>
    runTool('xmlsec1', [
      '--verify',
      trust.mode === 'pubkey-cert' ? '--pubkey-cert-pem' : '--trusted-pem',
      pathOf(paths, 'trust.pem'),
      pathOf(paths, 'signed.xml'),
    ]),
  );
}

function firstChildText(element: Element, localName: string): string | null {
  const found = element.getElementsByTagNameNS('urn:manifold:authorization', localName).item(0);
  return found?.firstChild?.nodeValue ?? null;
}

describe('XML signatures', () => {
  const fixtures: Partial<Record<KeyType, Fixture>> = {};
  let stranger: XmlSigner;

  async function makeSigner(ca: DevelopmentCa, keyType: KeyType): Promise<XmlSigner> {
    const keys = await generateKeyPair(keyType);
    const csr = await createCsr({ siteName: 'Acme', service: 'manage', purpose: 'signing', privateKeyPem: keys.privateKeyPem });
    return { privateKeyPem: keys.privateKeyPem, certificatePem: await signCsrWithDevelopmentCa(ca, csr) };
  }

  function fixture(keyType: KeyType): Fixture {
    const found = fixtures[keyType];
    if (!found) throw new Error('fixture missing');
    return found;
  }

  beforeAll(async () => {
    const [rsaCa, ecCa] = await Promise.all([
      createDevelopmentRootCa({ keyType: 'RSA' }),
      createDevelopmentRootCa({ keyType: 'EC' }),
    ]);
    const [rsaSigner, ecSigner, other] = await Promise.all([
      makeSigner(rsaCa, 'RSA'),
      makeSigner(ecCa, 'EC'),
      makeSigner(ecCa, 'EC'),
    ]);
    fixtures.RSA = { ca: rsaCa, signer: rsaSigner };
    fixtures.EC = { ca: ecCa, signer: ecSigner };
    stranger = other;
  });

  it('refuses to sign a document holding characters XML cannot carry', () => {
    for (const text of ['\u0001', '\u001b[0m', '\uffff', '\ud800']) {
      expect(() => signXml(`<Authorization><Field>${text}</Field></Authorization>`, fixture('EC').signer)).toThrow(
        'The document holds characters XML cannot carry',
      );
    }
  });

  it('signs and verifies text with the replacement character and characters beyond the BMP', () => {
    const { signer } = fixture('EC');
    const signed = signXml('<Authorization><Field>a\ufffdb😀\u{10ffff}</Field></Authorization>', signer);
    const { element } = verifyXmlSignature(signed, signer.certificatePem);
    expect(element.getElementsByTagName('Field').item(0)?.textContent).toBe('a\ufffdb😀\u{10ffff}');
  });

  for (const keyType of ['RSA', 'EC'] as const) {
    describe(`${keyType}`, () => {
      it('signs so that xmlsec1 verifies against the signer certificate', () => {
        const { signer } = fixture(keyType);
        const signed = signXml(AUTHORIZATION, signer);
        const result = xmlsec1Verify(signed, { certificatePem: signer.certificatePem, mode: 'pubkey-cert' });
        expect(result.stderr).toContain('OK');
        expect(result.status).toBe(0);
      });

      it('signs so that xmlsec1 verifies the KeyInfo certificate against the CA', () => {
        const { ca, signer } = fixture(keyType);
        const signed = signXml(AUTHORIZATION, signer);
        const result = xmlsec1Verify(signed, { certificatePem: ca.certificatePem, mode: 'trusted' });
        expect(result.stderr).toContain('OK');
        expect(result.status).toBe(0);
      });

      it('uses the expected algorithms and an enveloped Reference to the whole document', () => {
        const { signer } = fixture(keyType);
        const signed = signXml(AUTHORIZATION, signer);
        expect(signed).toContain('<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>');
        expect(signed).toContain(
          keyType === 'RSA'
            ? '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>'
            : '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"/>',
        );
        expect(signed).toContain('<ds:Reference URI="">');
        expect(signed).toContain('<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
        expect(signed).toMatch(/<\/x:note>\n {2}<empty\/>\n<ds:Signature xmlns:ds="http:\/\/www.w3.org\/2000\/09\/xmldsig#">/);
        const signatureValue = /<ds:SignatureValue>([^<]+)<\/ds:SignatureValue>/.exec(signed)?.[1] ?? '';
        expect(Buffer.from(signatureValue, 'base64').length).toBe(keyType === 'RSA' ? 384 : 64);
      });

      it('verifies against the known certificate and returns only the signed content', () => {
        const { signer } = fixture(keyType);
        const verified = verifyXmlSignature(signXml(AUTHORIZATION, signer), signer.certificatePem);
        expect(verified.element.localName).toBe('Authorization');
        expect(verified.element.getAttribute('orderId')).toBe('A1');
        expect(firstChildText(verified.element, 'quantity')).toBe('5');
        expect(verified.element.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature').length).toBe(0);
        expect(verified.canonicalXml).toContain(
          '<x:note xmlns:x="urn:manifold:ext" kind="plain">fish &amp; chips &lt;3</x:note>',
        );
      });
    });
  }

  describe('refuses', () => {
    function signedRsa(xml = AUTHORIZATION): string {
      return signXml(xml, fixture('RSA').signer);
    }
    function verifyRsa(xml: string) {
      return () => verifyXmlSignature(xml, fixture('RSA').signer.certificatePem);
    }

    it('a tampered text node', () => {
      const tampered = signedRsa().replace('<quantity>5</quantity>', '<quantity>50</quantity>');
      expect(verifyRsa(tampered)).toThrow(expect.objectContaining({ reason: 'digestMismatch' }));
      expect(
        xmlsec1Verify(tampered, { certificatePem: fixture('RSA').signer.certificatePem, mode: 'pubkey-cert' }).status,
      ).not.toBe(0);
    });

    it('a tampered attribute', () => {
      const tampered = signedRsa().replace('orderId="A1"', 'orderId="A2"');
      expect(verifyRsa(tampered)).toThrow(expect.objectContaining({ reason: 'digestMismatch' }));
    });

    it('an added element', () => {
      const tampered = signedRsa().replace('<empty/>', '<empty/><quantity>500</quantity>');
      expect(verifyRsa(tampered)).toThrow(expect.objectContaining({ reason: 'digestMismatch' }));
    });

    it('a comment injected into a signed value, which a plain XML-DSig verifier would accept', () => {
      const injected = signedRsa().replace('admin@example.com.evil.example', 'admin@example.com<!---->.evil.example');
      expect(xmlsec1Verify(injected, { certificatePem: fixture('RSA').signer.certificatePem, mode: 'pubkey-cert' }).status).toBe(
        0,
      );
      expect(verifyRsa(injected)).toThrow(expect.objectContaining({ reason: 'forbiddenXmlConstruct' }));
    });

    it('a processing instruction in signed content', () => {
      const injected = signedRsa().replace('<empty/>', '<empty/><?evil data?>');
      expect(verifyRsa(injected)).toThrow(expect.objectContaining({ reason: 'forbiddenXmlConstruct' }));
    });

    it('a signature wrapped in a forged document (signed element moved into ds:Object)', () => {
      const signed = signedRsa();
      const original = signed.slice(signed.indexOf('<Authorization'));
      const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed)?.[0] ?? '';
      const originalWithoutSignature = original.replace(signature, '');
      const forged =
        '<Authorization xmlns="urn:manifold:authorization" Id="auth-1" orderId="A1"><quantity>500</quantity>' +
        signature.replace('</ds:Signature>', `<ds:Object>${originalWithoutSignature}</ds:Object></ds:Signature>`) +
        '</Authorization>';
      expect(verifyRsa(forged)).toThrow(expect.objectContaining({ reason: 'signatureStructure' }));
    });

    it('a signed element moved under a forged document element', () => {
      const signed = signedRsa();
      const original = signed.slice(signed.indexOf('<Authorization'));
      const forged = `<Authorization xmlns="urn:manifold:authorization" Id="forged" orderId="A1"><quantity>500</quantity><Extensions>${original}</Extensions></Authorization>`;
      expect(verifyRsa(forged)).toThrow(expect.objectContaining({ reason: 'signatureStructure' }));
    });

    it('a Reference by Id that points at a moved element instead of the document element', () => {
      const { signer } = fixture('RSA');
      const signedById = signWithXmlsec1ById(signer);
      expect(verifyXmlSignature(signedById, signer.certificatePem).element.getAttribute('Id')).toBe('auth-1');

      const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signedById)?.[0] ?? '';
      const original = signedById.slice(signedById.indexOf('<Authorization')).replace(signature, '');
      const movedAway = `<Authorization xmlns="urn:manifold:authorization" Id="forged" orderId="A1"><quantity>500</quantity><Extensions>${original}</Extensions>${signature}</Authorization>`;
      expect(() => verifyXmlSignature(movedAway, signer.certificatePem)).toThrow(
        expect.objectContaining({
          reason: 'signatureStructure',
          message: 'The Reference URI #auth-1 does not point at the document element',
        }),
      );

      const duplicateId = `<Authorization xmlns="urn:manifold:authorization" Id="auth-1" orderId="A1"><quantity>500</quantity><Extensions>${original}</Extensions>${signature}</Authorization>`;
      expect(() => verifyXmlSignature(duplicateId, signer.certificatePem)).toThrow(
        expect.objectContaining({ reason: 'signatureStructure', message: 'The Id auth-1 is not unique in the document' }),
      );
    });

    it('a second Reference', () => {
      const signed = signedRsa();
      const reference = /<ds:Reference[\s\S]*<\/ds:Reference>/.exec(signed)?.[0] ?? '';
      const doubled = signed.replace(reference, reference + reference.replace('URI=""', 'URI="#other"'));
      expect(verifyRsa(doubled)).toThrow(expect.objectContaining({ reason: 'signatureStructure' }));
    });

    it('a second Signature', () => {
      const signed = signedRsa();
      const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed)?.[0] ?? '';
      const doubled = signed.replace(signature, signature + signature);
      expect(verifyRsa(doubled)).toThrow(
        expect.objectContaining({ reason: 'signatureStructure', message: 'Expected exactly one Signature, found 2' }),
      );
    });

    it('an unsigned document', () => {
      expect(verifyRsa(AUTHORIZATION)).toThrow(
        expect.objectContaining({ reason: 'signatureStructure', message: 'Expected exactly one Signature, found 0' }),
      );
    });

    it('a DOCTYPE with an external entity, before parsing', () => {
      const xxe = signedRsa()
        .replace('<Authorization', '<!DOCTYPE Authorization [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Authorization')
        .replace('<quantity>5</quantity>', '<quantity>&xxe;</quantity>');
      expect(verifyRsa(xxe)).toThrow(expect.objectContaining({ reason: 'forbiddenXmlConstruct' }));
      expect(() => signXml(xxe.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, ''), fixture('RSA').signer)).toThrow(
        expect.objectContaining({ reason: 'forbiddenXmlConstruct' }),
      );
      expect(() => parseXmlSafely('<!DOCTYPE a><a/>')).toThrow(expect.objectContaining({ reason: 'forbiddenXmlConstruct' }));
    });

    it('a document signed by a different certificate than the known one', () => {
      const signed = signXml(AUTHORIZATION, stranger);
      expect(() => verifyXmlSignature(signed, fixture('EC').signer.certificatePem)).toThrow(
        expect.objectContaining({ reason: 'badSignature' }),
      );
    });

    it('a KeyInfo swapped for the known certificate (the document KeyInfo is never trusted)', () => {
      const signed = signXml(AUTHORIZATION, stranger);
      const known = fixture('EC').signer.certificatePem.replace(/-----[^-]+-----|\s/g, '');
      const swapped = signed.replace(
        /<ds:X509Certificate>[^<]+<\/ds:X509Certificate>/,
        `<ds:X509Certificate>${known}</ds:X509Certificate>`,
      );
      expect(() => verifyXmlSignature(swapped, fixture('EC').signer.certificatePem)).toThrow(
        expect.objectContaining({ reason: 'badSignature' }),
      );
    });

    it('a signature method that does not fit the known key type', () => {
      const signed = signXml(AUTHORIZATION, fixture('EC').signer);
      expect(() => verifyXmlSignature(signed, fixture('RSA').signer.certificatePem)).toThrow(
        expect.objectContaining({ reason: 'unsupportedAlgorithm' }),
      );
    });

    it('SHA-1 signature and digest algorithms', () => {
      const signed = signedRsa();
      const sha1Signature = signed.replace(
        'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
        'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
      );
      expect(verifyRsa(sha1Signature)).toThrow(expect.objectContaining({ reason: 'unsupportedAlgorithm' }));
      const sha1Digest = signed.replace('http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2000/09/xmldsig#sha1');
      expect(verifyRsa(sha1Digest)).toThrow(expect.objectContaining({ reason: 'unsupportedAlgorithm' }));
      const inclusiveC14n = signed.replace(
        '<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
        '<ds:Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>',
      );
      expect(verifyRsa(inclusiveC14n)).toThrow(expect.objectContaining({ reason: 'unsupportedAlgorithm' }));
    });

    it('malformed XML', () => {
      expect(verifyRsa('<Authorization><quantity>5</Authorization>')).toThrow(expect.objectContaining({ reason: 'malformed' }));
    });

    it('to sign a document with a comment in it, or with a certificate of another key', () => {
      expect(() => signXml('<a><!-- hidden -->1</a>', fixture('RSA').signer)).toThrow(
        expect.objectContaining({ reason: 'forbiddenXmlConstruct' }),
      );
      expect(() =>
        signXml(AUTHORIZATION, { privateKeyPem: fixture('EC').signer.privateKeyPem, certificatePem: stranger.certificatePem }),
      ).toThrow(expect.objectContaining({ reason: 'keyMismatch' }));
    });
  });
});

/** xmlsec1 signs a template whose Reference points at the document element by Id. */
function signWithXmlsec1ById(signer: XmlSigner): string {
  const template = [
    '<Authorization xmlns="urn:manifold:authorization" Id="auth-1" orderId="A1"><quantity>5</quantity>',
    '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo>',
    '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
    '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>',
    '<ds:Reference URI="#auth-1"><ds:Transforms>',
    '<ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>',
    '<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
    '</ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>',
    '</ds:SignedInfo><ds:SignatureValue/></ds:Signature></Authorization>',
  ].join('');
  return withTempFiles({ 'template.xml': template, 'key.pem': signer.privateKeyPem }, (paths) => {
    const result = runTool('xmlsec1', [
      '--sign',
      '--privkey-pem',
      pathOf(paths, 'key.pem'),
      '--id-attr:Id',
      'Authorization',
      pathOf(paths, 'template.xml'),
    ]);
    if (result.status !== 0) throw new Error(`xmlsec1 --sign failed: ${result.stderr}`);
    return result.stdout;
  });
}
