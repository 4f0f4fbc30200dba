import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ZErrorResponse, ZLicensingStatus } from '@manifold/contract';
import { readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** A licence file is a few kilobytes; anything near this is not one. */
const LICENCE_FILE_MAX_BYTES = 64 * 1024;

const ZLicenceUploadForm = z.object({
  file: z.string().meta({ format: 'binary', description: 'The licence file (a compact JWS, at most 64 KiB)' }),
});

export const licenceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { licence } = app.services;

  app.get(
    '/ui/admin/licensing/status',
    {
      schema: {
        tags: ['admin'],
        summary: 'The installed operating licence: holder, validity, limits, current usage, expiry warning',
        response: responses(ZLicensingStatus),
      },
    },
    () => licence.status(),
  );

  app.post(
    '/ui/admin/upload/licensing',
    {
      config: { multipartForm: ZLicenceUploadForm },
      schema: {
        tags: ['admin'],
        summary: 'Install an operating licence signed by the configured publisher (refused files change nothing)',
        consumes: ['multipart/form-data'],
        response: { ...responses(ZLicensingStatus), 413: ZErrorResponse },
      },
    },
    async (request) => licence.install(requiredFile(await readSmallForm(request, LICENCE_FILE_MAX_BYTES)), callerOf(request)),
  );
};
