import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZDasConfig,
  ZStorageProvider,
  ZStorageProviderList,
  ZStorageProviderRequest,
  ZStorageType,
  ZStorageTypeList,
  ZStorageTypeListRequest,
  ZStorageTypeQuery,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** `admin/storage/*` and `admin/das`: the storage provider, storage types, the design archive switch. */
export const storageAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { storageSettings } = app.services;
  const tags = ['storage'];

  app.get(
    '/ui/admin/storage/provider',
    {
      schema: {
        tags,
        summary:
          'The selected storage provider (of its credentials only region, bucket, container, account and endpoint; never a key) and the progress of a move',
        response: responses(ZStorageProvider),
      },
    },
    () => storageSettings.provider(),
  );

  app.post(
    '/ui/admin/storage/provider',
    {
      schema: {
        tags,
        summary: 'Select a provider: checked with a probe object, credentials sealed; existing files move in the background',
        body: ZStorageProviderRequest,
        response: responses(ZStorageProvider),
      },
    },
    (request) => storageSettings.selectProvider(request.body, callerOf(request)),
  );

  app.get(
    '/ui/admin/storage/provider/list',
    { schema: { tags, summary: 'The provider identifiers', response: responses(ZStorageProviderList) } },
    () => storageSettings.providerList(),
  );

  app.get(
    '/ui/admin/storage/type/list',
    { schema: { tags, summary: 'The storage types', response: responses(ZStorageTypeList) } },
    () => storageSettings.types(),
  );

  app.post(
    '/ui/admin/storage/type/list',
    {
      schema: {
        tags,
        summary: 'Add or change storage types (name and path required); types not listed stay',
        body: ZStorageTypeListRequest,
        response: responses(ZStorageTypeList),
      },
    },
    (request) => storageSettings.saveTypes(request.body.data, callerOf(request)),
  );

  app.get(
    '/ui/admin/storage/type',
    { schema: { tags, summary: 'One storage type', querystring: ZStorageTypeQuery, response: responses(ZStorageType) } },
    (request) => storageSettings.type(request.query.name),
  );

  app.get(
    '/ui/admin/das',
    { schema: { tags: ['das'], summary: 'Whether the design archive service is enabled', response: responses(ZDasConfig) } },
    () => storageSettings.das(),
  );

  app.post(
    '/ui/admin/das',
    {
      schema: {
        tags: ['das'],
        summary: 'Enable or disable the design archive service',
        body: ZDasConfig,
        response: responses(ZDasConfig),
      },
    },
    (request) => storageSettings.setDas(request.body.enabled, callerOf(request)),
  );
};
