import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZAdminState,
  ZAddonList,
  ZBlockchainProvider,
  ZBlockchainProviderList,
  ZDatabaseConfig,
  ZServerConfig,
  ZVersion,
} from '@manifold/contract';
import { notImplemented } from '../../lib/app-error.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { currentSetupStep } from './setup-state.js';
import { traceVersionInUse } from './trace-version.js';

export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { database, config, serverSettings, admin } = app.services;

  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is up' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['operations'], summary: 'The database answers' } }, async (_request, reply) =>
    (await database.ping()) ? { status: 'ready' } : reply.status(503).send({ status: 'database unavailable' }),
  );

  app.get(
    '/ui/admin/state',
    { schema: { tags: ['admin'], summary: 'Current setup step', response: responses(ZAdminState) } },
    async () => ({ step: await currentSetupStep(database) }),
  );

  app.get('/ui/version', { schema: { tags: ['admin'], summary: 'Versions', response: responses(ZVersion) } }, async () => ({
    manageVersion: config.version,
    traceVersion: await traceVersionInUse(serverSettings, config.version),
  }));

  app.get(
    '/ui/admin/database',
    { schema: { tags: ['admin'], summary: 'The running database (never its password)', response: responses(ZDatabaseConfig) } },
    async () => database.describe(),
  );

  app.post(
    '/ui/admin/database',
    {
      schema: {
        tags: ['admin'],
        summary: 'Not implemented (spec §7): the database is chosen with DATABASE_URL',
        body: z.unknown(),
      },
    },
    async () => {
      throw notImplemented();
    },
  );

  app.get(
    '/ui/admin/server',
    {
      schema: {
        tags: ['admin'],
        summary: 'Site name, canonical address, Manage and Trace switches',
        response: responses(ZServerConfig),
      },
    },
    () => admin.serverConfig(),
  );

  app.post(
    '/ui/admin/server',
    {
      schema: {
        tags: ['admin'],
        summary: 'Rename the site, set its canonical address (absolute http(s) URL), switch Manage and Trace',
        body: ZServerConfig,
        response: responses(ZServerConfig),
      },
    },
    (request) => admin.updateServerConfig(request.body, callerOf(request)),
  );

  app.get(
    '/ui/admin/addons',
    { schema: { tags: ['admin'], summary: 'The addons and whether each is on', response: responses(ZAddonList) } },
    () => admin.addons(),
  );

  app.post(
    '/ui/admin/addons',
    {
      schema: {
        tags: ['admin'],
        summary: 'Switch addons on or off (unknown name: addonNotFound; not in the licence: addonNotLicensed)',
        body: ZAddonList,
        response: responses(ZAddonList),
      },
    },
    (request) => admin.updateAddons(request.body.data, callerOf(request)),
  );

  app.get(
    '/ui/admin/blockchain/provider',
    {
      schema: {
        tags: ['admin'],
        summary: 'The blockchain provider in use: this server has none',
        response: responses(ZBlockchainProvider),
      },
    },
    () => ({ identifier: null, configured: false }),
  );

  app.get(
    '/ui/admin/blockchain/provider/list',
    {
      schema: {
        tags: ['admin'],
        summary: 'Blockchain providers this server offers: none',
        response: responses(ZBlockchainProviderList),
      },
    },
    () => ({ data: [] }),
  );

  app.get('/ui/admin/api-spec', { schema: { tags: ['admin'], summary: 'This OpenAPI 3.1 document' } }, async () => app.swagger());
};
