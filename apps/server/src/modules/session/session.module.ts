import type { Core, ServerModule } from '../module.js';
import { LoginThrottlePolicy } from './login-throttle.js';
import { SessionTokens } from './session-tokens.js';
import { sessionRoutes } from './session.routes.js';
import { SessionService } from './session.service.js';

export async function sessionModule({ config, database, settings }: Core): Promise<ServerModule<{ sessions: SessionService }>> {
  const tokens = await SessionTokens.load(settings);
  const throttle = new LoginThrottlePolicy(config.loginThrottle);
  return { services: { sessions: new SessionService(database, config, tokens, throttle) }, routes: [sessionRoutes] };
}
