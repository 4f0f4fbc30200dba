import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type TStorageFile, ZPage, ZPageQuery, ZStorageFile } from '@manifold/contract';
import { attachmentDisposition } from '../../lib/file-names.js';
import { streamFormFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

const ZTypeParams = z.object({ type: z.string().max(64) });
const ZFetchParams = z.object({ type: z.string().max(64), filename: z.string().max(255) });
const ZStorageUploadForm = z.object({
  file: z.string().meta({
    format: 'binary',
    description: 'The file; its file name names it in the type, replacing a file of that name (at most UPLOAD_MAX_BYTES)',
  }),
});

/** `storage/{type}/list|upload|fetch/{filename}` and `storage/dsi/upload`: files kept by type and name. */
export const typedStorageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { typedStorage, config } = app.services;
  const tags = ['storage'];

  /** Streams the form's `file` part into the type under the part's file name. */
  const upload = (request: FastifyRequest, type: string): Promise<TStorageFile> => {
    const caller = callerOf(request);
    return streamFormFile(request, config.uploadMaxBytes, (_fields, file) =>
      typedStorage.upload(type, file.fileName ?? '', file.stream, caller),
    );
  };

  app.get(
    '/ui/storage/:type/list',
    {
      schema: {
        tags,
        summary: 'The files of a storage type, by name (paged)',
        params: ZTypeParams,
        querystring: ZPageQuery,
        response: responses(ZPage(ZStorageFile)),
      },
    },
    (request) => typedStorage.list(request.params.type, request.query),
  );

  app.post(
    '/ui/storage/:type/upload',
    {
      schema: {
        tags,
        summary: 'Upload a file into a storage type (multipart file; its name names it, replacing a file of that name); streamed',
        consumes: ['multipart/form-data'],
        params: ZTypeParams,
        response: responses(ZStorageFile),
      },
      config: { multipartForm: ZStorageUploadForm },
    },
    (request) => upload(request, request.params.type),
  );

  app.post(
    '/ui/storage/dsi/upload',
    {
      schema: {
        tags,
        summary: 'Upload a design (DSI) file into the dsi storage type (multipart file); streamed',
        consumes: ['multipart/form-data'],
        response: responses(ZStorageFile),
      },
      config: { multipartForm: ZStorageUploadForm },
    },
    (request) => upload(request, 'dsi'),
  );

  app.get(
    '/ui/storage/:type/fetch/:filename',
    { schema: { tags, summary: 'Download a file of a storage type by name', params: ZFetchParams } },
    async (request, reply) => {
      const opened = await typedStorage.open(request.params.type, request.params.filename);
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(opened.file.filesize))
        .header('content-disposition', attachmentDisposition(opened.file.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(opened.stream);
    },
  );
};
