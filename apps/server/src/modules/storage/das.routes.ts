import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DAS_PACKAGE_MAX_BYTES, ZDsiEntry } from '@manifold/contract';
import { streamFormFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

const ZDasUploadForm = z.object({
  file: z.string().meta({
    format: 'binary',
    description: `A design package file: a DSI entry with its manifest and signature (at most ${DAS_PACKAGE_MAX_BYTES / 1024 / 1024} MiB)`,
  }),
});

/** `das/upload`: a design package file into the design archive (docs/storage.md). */
export const dasRoutes: FastifyPluginAsyncZod = async (app) => {
  const { das } = app.services;

  app.post(
    '/ui/das/upload',
    {
      schema: {
        tags: ['das'],
        summary: 'Upload a design package file (a DSI entry with its manifest and signature) into the design archive',
        consumes: ['multipart/form-data'],
        response: responses(ZDsiEntry),
      },
      config: { multipartForm: ZDasUploadForm },
    },
    (request) => {
      const caller = callerOf(request);
      return streamFormFile(request, DAS_PACKAGE_MAX_BYTES, (_fields, file) => das.upload(file.stream, caller));
    },
  );
};
