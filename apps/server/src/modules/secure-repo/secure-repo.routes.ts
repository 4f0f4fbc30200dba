import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZEmpty,
  ZSecureRepoCreateFolderRequest,
  ZSecureRepoDownloadQuery,
  ZSecureRepoEditRequest,
  ZSecureRepoListQuery,
  ZSecureRepoListResponse,
  ZSecureRepoNode,
  ZSecureRepoNodeId,
  ZSecureRepoNodeRequest,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { identifierField, streamFormFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { sendFile } from '../../lib/send-file.js';
import { callerOf } from '../../plugins/auth.js';

/** The multipart form of `secure-repo/upload` (nodeId is read before the file). */
const ZSecureRepoUploadForm = z
  .object({
    nodeId: ZSecureRepoNodeId.meta({ description: 'The folder to upload into' }),
    file: z.string().meta({ format: 'binary', description: 'The file, streamed and encrypted at rest' }),
  })
  .meta({ description: 'multipart/form-data fields: nodeId before file' });

/** The secure file repository (spec §7 `secure-repo/*`; docs/secure-repository.md). */
export const secureRepoRoutes: FastifyPluginAsyncZod = async (app) => {
  const { secureRepo, config } = app.services;
  const tags = ['secure-repo'];

  app.get(
    '/ui/secure-repo/list',
    {
      schema: {
        tags,
        summary: 'The folders and files in a folder (the top level without nodeId) that the caller may see, a page at a time',
        querystring: ZSecureRepoListQuery,
        response: responses(ZSecureRepoListResponse),
      },
    },
    (request) => secureRepo.list(request.query, callerOf(request)),
  );

  app.post(
    '/ui/secure-repo/create-folder',
    {
      schema: {
        tags,
        summary: 'Create a folder shared with groups (top level: ADMIN; inside a folder: within its groups)',
        body: ZSecureRepoCreateFolderRequest,
        response: responses(ZSecureRepoNode),
      },
    },
    (request) => secureRepo.createFolder(request.body, callerOf(request)),
  );

  app.post(
    '/ui/secure-repo/upload',
    {
      config: { multipartForm: ZSecureRepoUploadForm },
      schema: {
        tags,
        summary: 'Upload a file into a folder (multipart: nodeId first, then file); streamed, encrypted at rest',
        consumes: ['multipart/form-data'],
        response: responses(ZSecureRepoNode),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return streamFormFile(request, config.uploadMaxBytes, (fields, file) => {
        if (fields.nodeId === undefined) throw new AppError('secureRepoFieldsFirst', { field: 'file' });
        return secureRepo.upload({ nodeId: identifierField(fields.nodeId, 'nodeId', ZSecureRepoNodeId), ...file }, caller);
      });
    },
  );

  app.post(
    '/ui/secure-repo/edit-file',
    {
      schema: {
        tags,
        summary: "Change a folder's or file's description (and, ADMIN, a folder's groups)",
        body: ZSecureRepoEditRequest,
        response: responses(ZSecureRepoNode),
      },
    },
    (request) => secureRepo.edit(request.body, callerOf(request)),
  );

  app.post(
    '/ui/secure-repo/delete',
    {
      schema: {
        tags,
        summary: 'Delete a file, or a folder with everything in it',
        body: ZSecureRepoNodeRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await secureRepo.delete(request.body.nodeId, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/secure-repo/download',
    {
      // a HEAD would decrypt and record a download without handing the file out
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'Download a file, decrypted on the fly with every record verified (audited)',
        querystring: ZSecureRepoDownloadQuery,
      },
    },
    async (request, reply) => {
      const opened = await secureRepo.open(request.query.nodeId, callerOf(request));
      // every byte is verified before it is sent and the size is the plaintext's: a failure aborts the answer short
      return sendFile(reply, {
        fileName: opened.node.folderName,
        sha256: opened.node.sha256 ?? '',
        stream: opened.stream,
        length: opened.node.size ?? 0,
      });
    },
  );
};
