import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorDescriptions } from '@manifold/contract';
import { isApiPath } from '../lib/api-paths.js';

export interface ConsoleHooks {
  /** Called with every request the not-found handler answers (a page, or 404). */
  onNotFound?: (request: FastifyRequest, reply: FastifyReply) => void;
}

/**
 * Serves the built console at `/` and answers deep links (`/orders/42`) with its index.html.
 * Unknown API paths get the spec's 404 body instead.
 */
export async function registerConsole(app: FastifyInstance, hooks: ConsoleHooks = {}): Promise<void> {
  const { consoleDir, publicUrl, cookieSecure, cookieDomain, version } = app.services.config;
  const { serverSettings } = app.services;
  const indexFile = path.join(consoleDir, 'index.html');
  const hasConsole = fs.existsSync(indexFile);

  // the brand and the switched-off functions are read at every request: a rename shows at once
  app.get('/console-config.json', { schema: { hide: true } }, async (_request, reply) => {
    const [siteName, closedFunctions] = await Promise.all([serverSettings.siteName(), serverSettings.closedGates()]);
    return reply.header('Cache-Control', 'no-store').send({
      siteName,
      closedFunctions,
      publicUrl,
      secureCookies: cookieSecure,
      cookieDomain,
      version,
    });
  });

  if (hasConsole) {
    await app.register(fastifyStatic, {
      root: consoleDir,
      prefix: '/',
      wildcard: true,
      index: 'index.html',
      cacheControl: false,
      // the build's `.br`/`.gz` copies (apps/console/vite.config.ts) to a browser that accepts them
      preCompressed: true,
      // hashed assets never change; everything else is revalidated
      setHeaders(res, filePath) {
        res.setHeader(
          'Cache-Control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
        res.setHeader('Vary', 'Accept-Encoding');
      },
    });
  } else {
    app.log.warn(`no built console at ${consoleDir}: run "npm run build" to serve it`);
  }

  // not async: an async handler returns the reply, and Fastify's await of an unfinished reply adds
  // a `close` listener to the response, on top of @fastify/static's own for the file it streams
  // (under load a streamed page passed Node's limit of 10 and printed MaxListenersExceededWarning)
  app.setNotFoundHandler((request, reply) => {
    hooks.onNotFound?.(request, reply);
    const url = request.url.split('?', 1)[0] ?? '/';
    // a deep link is a page; a missing file (it has an extension) is a 404
    // (`/` itself comes here too when the client accepts compressed answers: @fastify/static 8's
    // pre-compressed lookup does not resolve a directory's index file)
    const wantsPage =
      request.method === 'GET' &&
      (url === '/' || (!isApiPath(url) && !path.extname(url) && (request.headers.accept ?? '').includes('text/html')));
    if (hasConsole && wantsPage) {
      reply.header('Cache-Control', 'no-cache').type('text/html').sendFile('index.html', consoleDir);
      return;
    }
    reply.status(404).send({ errorToken: 'entityDoesNotExist', errorDescription: errorDescriptions.entityDoesNotExist });
  });
}
