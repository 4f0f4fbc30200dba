import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { testRoot } from './test-pki.js';

/**
 * A SAML 2.0 identity provider for the tests: it reads the AuthnRequest of the redirect binding
 * (deflated, base64) and answers a Response whose assertion is signed with RSA-SHA256 by
 * `xml-crypto` (the signer node-saml itself builds on), with a certificate from the test CA.
 * Options make the answers the refusal tests need (expired, another audience, unsigned).
 */
export interface TestSamlIdp {
  entityId: string;
  ssoUrl: string;
  certificatePem: string;
  /** The AuthnRequest's ID and assertion consumer address from the address the server redirected to. */
  readRequest(location: string): { id: string; acsUrl: string; relayState: string | null };
  respond(request: { id: string; acsUrl: string }, user: SamlUser, options?: ResponseOptions): string;
}

export interface SamlUser {
  nameId: string;
  email?: string;
  givenName?: string;
  surname?: string;
}

export interface ResponseOptions {
  audience?: string;
  /** Minutes from now the assertion stops being valid (negative: already expired). */
  validMinutes?: number;
  issueInstant?: Date;
  sign?: boolean;
  assertionId?: string;
}

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';

export async function startSamlIdp(audience: string): Promise<TestSamlIdp> {
  const ca = await testRoot('Test SAML identity provider', 'RSA');
  const entityId = 'https://idp.test.example/saml';
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  return {
    entityId,
    ssoUrl: 'https://idp.test.example/sso',
    certificatePem: ca.certificatePem,
    readRequest(location) {
      const url = new URL(location);
      const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
      const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
      return {
        id: request.getAttribute('ID')!,
        acsUrl: request.getAttribute('AssertionConsumerServiceURL')!,
        relayState: url.searchParams.get('RelayState'),
      };
    },
    respond(request, user, options = {}) {
      const now = options.issueInstant ?? new Date();
      const until = new Date(now.getTime() + (options.validMinutes ?? 5) * 60_000).toISOString();
      const notBefore = new Date(now.getTime() - 60_000).toISOString();
      const assertionId = options.assertionId ?? `_a${randomUUID()}`;
      const attributes = [
        ['email', user.email],
        ['givenName', user.givenName],
        ['sn', user.surname],
      ]
        .filter(([, value]) => value)
        .map(
          ([name, value]) =>
            `<saml:Attribute Name="${name}"><saml:AttributeValue>${escape(value!)}</saml:AttributeValue></saml:Attribute>`,
        )
        .join('');
      const assertion =
        `<saml:Assertion xmlns:saml="${SAML}" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">` +
        `<saml:Issuer>${entityId}</saml:Issuer>` +
        `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${escape(user.nameId)}</saml:NameID>` +
        `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
        `<saml:SubjectConfirmationData InResponseTo="${request.id}" NotOnOrAfter="${until}" Recipient="${escape(request.acsUrl)}"/>` +
        `</saml:SubjectConfirmation></saml:Subject>` +
        `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${until}">` +
        `<saml:AudienceRestriction><saml:Audience>${escape(options.audience ?? audience)}</saml:Audience></saml:AudienceRestriction>` +
        `</saml:Conditions>` +
        `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
        `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
        `</saml:AuthnContext></saml:AuthnStatement>` +
        (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
        `</saml:Assertion>`;
      const response =
        `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${now.toISOString()}" ` +
        `Destination="${escape(request.acsUrl)}" InResponseTo="${request.id}">` +
        `<saml:Issuer>${entityId}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
        assertion +
        `</samlp:Response>`;
      if (options.sign === false) return Buffer.from(response).toString('base64');
      const signer = new SignedXml({
        privateKey: ca.privateKeyPem,
        publicCert: ca.certificatePem,
        signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
        canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
      });
      signer.addReference({
        xpath: `//*[local-name(.)='Assertion']`,
        transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
        digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      });
      signer.computeSignature(response, {
        location: { reference: `//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']`, action: 'after' },
      });
      return Buffer.from(signer.getSignedXml()).toString('base64');
    },
  };
}
