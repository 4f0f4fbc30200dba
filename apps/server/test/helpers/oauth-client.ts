import type { TestApp } from './test-app.js';

/** An access token of this server's token endpoint for an OAuth client (client-credentials grant). */
export async function clientCredentialsToken(ctx: TestApp, clientId: string, clientSecret: string): Promise<string> {
  const issued = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
  });
  if (issued.statusCode !== 200) throw new Error(`token endpoint answered ${issued.statusCode}: ${issued.body}`);
  return issued.json<{ access_token: string }>().access_token;
}
