import type { Core, ServerModule } from '../module.js';
import type { SessionService } from '../session/session.service.js';
import { ApiTokensService } from './api-tokens.service.js';
import { identityRoutes } from './identity.routes.js';
import { SsoService } from './sso.service.js';

/**
 * Single sign-on, trusted issuers and OAuth clients (docs/identity.md). Registers two bearer
 * verifiers with the session service, so the auth plugin accepts OAuth client access tokens and
 * trusted issuers' JWTs next to session tokens.
 */
export function identityModule(
  { config, database, sealer }: Core,
  sessions: SessionService,
): ServerModule<{ sso: SsoService; apiTokens: ApiTokensService }> {
  const apiTokens = new ApiTokensService(database, config);
  sessions.addBearerVerifier(apiTokens.verifyClientToken);
  sessions.addBearerVerifier(apiTokens.verifyIssuerToken);
  const sso = new SsoService(database, config, sealer, sessions, `${config.publicUrl}/oauth2/token`, apiTokens.jwtAudience);
  return { services: { sso, apiTokens }, routes: [identityRoutes] };
}
