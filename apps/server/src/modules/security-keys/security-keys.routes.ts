import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZAuthenticator,
  ZAuthenticatorAddRequest,
  ZAuthenticatorDeleteRequest,
  ZEmpty,
  ZEscalateLoginRequest,
  ZEscalateLoginResponse,
  ZEscalationPolicy,
  ZPage,
  ZPageQuery,
  ZWebAuthnOptions,
} from '@manifold/contract';
import { saveRoute } from '../../lib/route-declarations.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** The caller's own security keys, and escalating the session with one. */
export const securityKeysRoutes: FastifyPluginAsyncZod = async (app) => {
  const { securityKeys } = app.services;
  const tags = ['security keys'];

  app.get(
    '/ui/admin/escalation',
    {
      schema: {
        tags,
        summary: 'Whether sensitive actions need a security-key confirmation from every administrator',
        response: responses(ZEscalationPolicy),
      },
    },
    () => securityKeys.escalationPolicy(),
  );
  saveRoute(
    app,
    '/ui/admin/escalation',
    {
      tags,
      summary: 'Require (or stop requiring) a security-key confirmation from every administrator for sensitive actions',
      body: ZEscalationPolicy,
      response: ZEscalationPolicy,
    },
    (body, caller) => securityKeys.setEscalationPolicy(body, caller),
  );

  app.get(
    '/ui/authenticators/list',
    { schema: { tags, summary: 'Your security keys', querystring: ZPageQuery, response: responses(ZPage(ZAuthenticator)) } },
    (request) => securityKeys.list(callerOf(request), request.query),
  );

  app.post(
    '/ui/authenticators/attestation-options/generate',
    {
      schema: {
        tags,
        summary: 'WebAuthn creation options for a new security key (challenge kept server-side, single use)',
        response: responses(ZWebAuthnOptions),
      },
    },
    (request) => securityKeys.attestationOptions(callerOf(request)),
  );

  app.post(
    '/ui/authenticators/add',
    {
      schema: {
        tags,
        summary: 'Register a security key from its attestation (RegistrationResponseJSON)',
        body: ZAuthenticatorAddRequest,
        response: responses(ZAuthenticator),
      },
    },
    (request) => securityKeys.add(request.body, callerOf(request)),
  );

  app.post(
    '/ui/authenticators/delete',
    {
      schema: {
        tags,
        summary: 'Remove one of your security keys',
        body: ZAuthenticatorDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await securityKeys.delete(request.body, callerOf(request));
      return {};
    },
  );

  app.post(
    '/ui/authenticators/assertion-options/generate',
    {
      schema: {
        tags,
        summary: 'WebAuthn request options for confirming with one of your security keys',
        response: responses(ZWebAuthnOptions),
      },
    },
    (request) => securityKeys.assertionOptions(callerOf(request)),
  );

  app.post(
    '/ui/authenticators/escalate-login',
    {
      schema: {
        tags,
        summary: 'Escalate the session with a security-key assertion (AuthenticationResponseJSON)',
        body: ZEscalateLoginRequest,
        response: responses(ZEscalateLoginResponse),
      },
    },
    (request) => securityKeys.escalate(request.body, callerOf(request)),
  );
};
