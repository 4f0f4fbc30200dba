import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { testRoot } from './test-pki.js';

/**
 * The part of samlify's API used here, typed locally: samlify's own declarations pull in an
 * `@xmldom/xmldom` whose `/// <reference lib="dom" />` would put the browser's DOM types into the
 * server's type check. Loaded with `require` for the same reason.
 */
interface SamlifyEntity {
  entityMeta: { getEntityID(): string; getAssertionConsumerService(binding: string): string | string[] };
}
interface SamlifyIdentityProvider {
  parseLoginRequest(
    sp: SamlifyEntity,
    binding: 'redirect',
    request: { query: Record<string, string>; octetString: string },
  ): Promise<{ extract: { request: { id: string } } }>;
  createLoginResponse(
    sp: SamlifyEntity,
    requestInfo: unknown,
    binding: 'post',
    user: Record<string, unknown>,
    options: { relayState?: string; customTagReplacement: (template: string) => { id: string; context: string } },
  ): Promise<{ context: string; entityEndpoint: string; relayState?: string }>;
}
interface Samlify {
  IdentityProvider(settings: Record<string, unknown>): SamlifyIdentityProvider;
  ServiceProvider(settings: Record<string, unknown>): SamlifyEntity;
  setSchemaValidator(validator: { validate(xml: string): Promise<unknown> }): void;
  SamlLib: {
    defaultLoginResponseTemplate: Record<string, unknown>;
    replaceTagsByValue(xml: string, values: Record<string, string | null>): string;
  };
}
const require = createRequire(import.meta.url);
const samlify = require('samlify') as Samlify;
const xmllint = require('@authenio/samlify-xmllint-wasm') as { validate(xml: string): Promise<unknown> };

const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/**
 * A SAML 2.0 identity provider for the tests: `samlify` (maintained, IdP side) on a loopback
 * HTTP server. `GET {ssoUrl}?SAMLRequest&RelayState` (the redirect binding the server sends the
 * browser to) has samlify read and schema-check the AuthnRequest (`@authenio/samlify-xmllint-wasm`,
 * xmllint compiled to WebAssembly, run in a worker: no network, no Java), then answers the page a real IdP answers
 * after its own login: an HTML form that posts the signed `SAMLResponse` and the `RelayState` to
 * the service provider's assertion consumer. Who is logged in at the IdP is a session cookie made
 * by `session(user)`; its options bend the response (time window, audience) for refusal tests.
 */
export interface TestSamlIdp {
  entityId: string;
  ssoUrl: string;
  certificatePem: string;
  /** The service provider (entity id and assertion consumer) this IdP answers, as from its metadata. */
  trust(serviceProvider: { entityId: string; acsUrl: string }): void;
  /** A browser session at the IdP, logged in as `user`: the value of the Cookie header. */
  session(user: SamlUser, options?: ResponseOptions): string;
  /** Last AuthnRequest the IdP read (its ID and assertion consumer address). */
  lastRequest(): { id: string; acsUrl: string } | undefined;
  close(): Promise<void>;
}

export interface SamlUser {
  nameId: string;
  email?: string;
  givenName?: string;
  surname?: string;
}

export interface ResponseOptions {
  /** Audience written in the assertion instead of the service provider's entity id. */
  audience?: string;
  /** Minutes from the issue instant the assertion stays valid (default 5). */
  validMinutes?: number;
  issueInstant?: Date;
}

/** The auto-submitting form of the HTTP-POST binding, as the IdP sends it to the browser. */
export interface PostForm {
  action: string;
  SAMLResponse: string;
  RelayState?: string;
}

const COOKIE = 'idp_session';
const ATTRIBUTES = [
  { name: 'email', valueTag: 'email' },
  { name: 'givenName', valueTag: 'givenName' },
  { name: 'sn', valueTag: 'surname' },
].map((attribute) => ({
  ...attribute,
  nameFormat: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
  valueXsiType: 'xs:string',
}));
const AUTHN_STATEMENT =
  '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext>' +
  '<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>' +
  '</saml:AuthnContext></saml:AuthnStatement>';

/** Reads the form out of the IdP's HTML page (what a browser submits). */
export function readPostForm(html: string): PostForm {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const SAMLResponse = field('SAMLResponse');
  if (!action || !SAMLResponse) throw new Error(`not a SAML POST form: ${html.slice(0, 200)}`);
  const unescape = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const relayState = field('RelayState');
  return {
    action: unescape(action),
    SAMLResponse: unescape(SAMLResponse),
    ...(relayState !== undefined ? { RelayState: unescape(relayState) } : {}),
  };
}

export async function startSamlIdp(): Promise<TestSamlIdp> {
  samlify.setSchemaValidator(xmllint);
  const ca = await testRoot('Test SAML identity provider', 'RSA');
  const sessions = new Map<string, { user: SamlUser; options: ResponseOptions }>();
  let serviceProvider: SamlifyEntity | undefined;
  let last: { id: string; acsUrl: string } | undefined;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${origin}/saml/metadata`;
  const ssoUrl = `${origin}/saml/sso`;
  const idp = samlify.IdentityProvider({
    entityID: entityId,
    privateKey: ca.privateKeyPem,
    signingCert: ca.certificatePem,
    nameIDFormat: [NAMEID_UNSPECIFIED],
    singleSignOnService: [{ Binding: BINDING_REDIRECT, Location: ssoUrl }],
    loginResponseTemplate: { ...samlify.SamlLib.defaultLoginResponseTemplate, attributes: ATTRIBUTES },
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', origin);
    if (request.method !== 'GET' || url.pathname !== '/saml/sso' || !serviceProvider) {
      response.writeHead(404).end();
      return;
    }
    const sessionId = /(?:^|;\s*)idp_session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (!session) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('not logged in at the identity provider');
      return;
    }
    const query = Object.fromEntries(url.searchParams);
    const parsed = await idp.parseLoginRequest(serviceProvider, 'redirect', { query, octetString: '' });
    const extract = parsed.extract;
    last = { id: extract.request.id, acsUrl: serviceProvider.entityMeta.getAssertionConsumerService('post') as string };
    const answer = await idp.createLoginResponse(
      serviceProvider,
      parsed,
      'post',
      { email: session.user.email },
      {
        ...(query.RelayState ? { relayState: query.RelayState } : {}),
        customTagReplacement: (template) => fill(template, extract.request.id, session.user, session.options),
      },
    );
    const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const relay = answer.relayState ? `<input type="hidden" name="RelayState" value="${escape(answer.relayState)}">` : '';
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html><body onload="document.forms[0].submit()">` +
          `<form method="post" action="${escape(answer.entityEndpoint)}">` +
          `<input type="hidden" name="SAMLResponse" value="${escape(answer.context)}">${relay}` +
          `<noscript><button type="submit">Continue</button></noscript></form></body></html>`,
      );
  }

  /** The template's tags, as samlify's own defaults fill them, with the session's options applied. */
  function fill(template: string, inResponseTo: string, user: SamlUser, options: ResponseOptions) {
    const sp = serviceProvider!;
    const now = options.issueInstant ?? new Date();
    const until = new Date(now.getTime() + (options.validMinutes ?? 5) * 60_000).toISOString();
    const acsUrl = sp.entityMeta.getAssertionConsumerService('post') as string;
    const id = `_r${randomUUID()}`;
    const withStatement = template.replace('{AuthnStatement}', AUTHN_STATEMENT);
    const context = samlify.SamlLib.replaceTagsByValue(withStatement, {
      ID: id,
      AssertionID: `_a${randomUUID()}`,
      Destination: acsUrl,
      Audience: options.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: acsUrl,
      Issuer: entityId,
      IssueInstant: now.toISOString(),
      StatusCode: STATUS_SUCCESS,
      ConditionsNotBefore: new Date(now.getTime() - 60_000).toISOString(),
      ConditionsNotOnOrAfter: until,
      SubjectConfirmationDataNotOnOrAfter: until,
      NameIDFormat: NAMEID_UNSPECIFIED,
      NameID: user.nameId,
      InResponseTo: inResponseTo,
      SessionIndex: `_s${randomUUID()}`,
      // an attribute the user lacks is left without a value
      attrEmail: user.email ?? null,
      attrGivenName: user.givenName ?? null,
      attrSurname: user.surname ?? null,
    });
    return { id, context };
  }

  return {
    entityId,
    ssoUrl,
    certificatePem: ca.certificatePem,
    trust({ entityId: spEntityId, acsUrl }) {
      serviceProvider = samlify.ServiceProvider({
        entityID: spEntityId,
        wantAssertionsSigned: true,
        assertionConsumerService: [{ Binding: BINDING_POST, Location: acsUrl }],
      });
    },
    session(user, options = {}) {
      const id = randomUUID();
      sessions.set(id, { user, options });
      return `${COOKIE}=${id}`;
    },
    lastRequest: () => last,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
