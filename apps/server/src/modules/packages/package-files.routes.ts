import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ZDsiId, ZEmpty, ZFileIdQuery, ZFileIdRequest, ZFilePrivacyRequest, ZPackageFile } from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { booleanField, identifierField, streamFormFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { sendFile } from '../../lib/send-file.js';
import { classificationField } from '../access-control/classification.js';
import { callerOf } from '../../plugins/auth.js';

/** The multipart form of `package/files/upload` (its text fields are read before the file). */
const ZPackageFileUploadForm = z
  .object({
    dsiId: ZDsiId.meta({ description: 'The design package the file belongs to' }),
    isPublic: z.enum(['true', 'false']).meta({ description: 'false: the file is encrypted at rest' }),
    classification: z.string().optional().meta({ description: 'CUI, FCI, or empty or absent: unlabelled' }),
    file: z.string().meta({ format: 'binary', description: 'The file, streamed' }),
  })
  .meta({ description: 'multipart/form-data fields: dsiId, isPublic and classification before file' });

/** The files of a design package: uploaded, made public or private, deleted, downloaded. */
export const packageFilesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { packageFiles, config } = app.services;
  const tags = ['packages'];

  app.post(
    '/ui/package/files/upload',
    {
      config: { multipartForm: ZPackageFileUploadForm },
      schema: {
        tags,
        summary:
          'Upload a file (multipart: dsiId, isPublic and optional classification CUI/FCI first, then file); streamed, private files encrypted at rest',
        consumes: ['multipart/form-data'],
        response: responses(ZPackageFile),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return streamFormFile(request, config.uploadMaxBytes, (fields, file) => {
        if (fields.dsiId === undefined || fields.isPublic === undefined)
          throw new AppError('packageFileFieldsFirst', { field: 'file' });
        return packageFiles.upload(
          {
            dsiId: identifierField(fields.dsiId, 'dsiId', ZDsiId),
            isPublic: booleanField(fields.isPublic, 'isPublic'),
            classification: classificationField(fields.classification),
            ...file,
          },
          caller,
        );
      });
    },
  );

  app.post(
    '/ui/package/files/privacy',
    {
      schema: {
        tags,
        summary: 'Make a file public (decrypt) or private (encrypt)',
        body: ZFilePrivacyRequest,
        response: responses(ZPackageFile),
      },
    },
    (request) => packageFiles.setPrivacy(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/files/delete',
    { schema: { tags, summary: 'Delete a file', body: ZFileIdRequest, response: responses(ZEmpty) } },
    async (request) => {
      await packageFiles.delete(request.body, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/package/files/download',
    {
      // a HEAD would open (and decrypt) the file and record an access without handing the file out
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'Download a file (private files: ADMIN, decrypted on the fly; each access is audited)',
        querystring: ZFileIdQuery,
      },
    },
    async (request, reply) => {
      const opened = await packageFiles.open(request.query.fileId, callerOf(request));
      // A private file's length is only known for sure once its tag verified: sent chunked, so a
      // failed check aborts the response instead of completing it.
      return sendFile(reply, {
        fileName: opened.file.fileName,
        sha256: opened.file.sha256,
        stream: opened.stream,
        length: opened.file.isPublic ? opened.size : undefined,
      });
    },
  );
};
