import { pipeline } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceTemplateJsonSchema,
  ZDasListQuery,
  ZDeviceTemplate,
  ZDeviceTemplateDeleteRequest,
  ZDeviceTemplateDetail,
  ZDeviceTemplateListQuery,
  ZDsiEntry,
  ZDsiId,
  ZDsiIdQuery,
  ZDsiIdRequest,
  ZDsiRevision,
  ZEmpty,
  ZFileIdQuery,
  ZFileIdRequest,
  ZFilePrivacyRequest,
  ZImageName,
  ZPackage,
  ZPackageDetail,
  ZPackageFile,
  ZPackageInfoRequest,
  ZPackageListQuery,
  ZPage,
  ZRevisionQuery,
  ZWorkflowAddRequest,
  ZWorkflowDeleteRequest,
  ZWorkflowEditRequest,
  ZWorkflowReorderRequest,
  ZWorkflowStep,
  ZWorkflowSteps,
  type TPackageFile,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { attachmentDisposition } from '../../lib/file-names.js';
import { booleanField, failOnTruncation, formParts, readSmallFile, identifierField } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { sendImage } from '../images/image-route.js';
import { TEMPLATE_MAX_BYTES } from './device-templates.service.js';

export const packagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { packages, packageFiles, deviceTemplates, config } = app.services;
  const tags = ['packages'];

  app.get(
    '/ui/package/list',
    {
      schema: {
        tags,
        summary: 'Design packages, a page at a time (filter: name)',
        querystring: ZPackageListQuery,
        response: responses(ZPage(ZPackage)),
      },
    },
    (request) => {
      const { name, ...page } = request.query;
      return packages.list(page, name);
    },
  );

  app.get(
    '/ui/package/fetch',
    {
      schema: {
        tags,
        summary: 'A package with its steps, files, templates and revisions',
        querystring: ZDsiIdQuery,
        response: responses(ZPackageDetail),
      },
    },
    (request) => packages.fetch(request.query.dsiId),
  );

  app.post(
    '/ui/package/info',
    {
      schema: {
        tags,
        summary:
          'Create a package (no dsiId) or update one (dsiId and the version read; a stale version is packageVersionConflict)',
        body: ZPackageInfoRequest,
        response: responses(ZPackage),
      },
    },
    (request) => packages.saveInfo(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/delete',
    {
      schema: {
        tags,
        summary: 'Delete a package (refused while orders refer to it)',
        body: ZDsiIdRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await packages.delete(request.body, callerOf(request));
      return {};
    },
  );

  app.post(
    '/ui/package/build',
    {
      schema: {
        tags,
        summary: 'Freeze the package into a signed revision (a DSI entry)',
        body: ZDsiIdRequest,
        response: responses(ZDsiEntry),
      },
    },
    (request) => packages.build(request.body, callerOf(request)),
  );

  app.get(
    '/ui/package/image/:image',
    { schema: { tags, summary: 'A package display image', params: z.object({ image: ZImageName }) } },
    (request, reply) => sendImage(app, reply, request.params.image, 'package'),
  );

  // workflow steps

  app.post(
    '/ui/package/workflow/add',
    {
      schema: { tags, summary: 'Add a workflow step at the end', body: ZWorkflowAddRequest, response: responses(ZWorkflowStep) },
    },
    (request) => packages.addStep(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/workflow/edit',
    { schema: { tags, summary: 'Edit a workflow step', body: ZWorkflowEditRequest, response: responses(ZWorkflowStep) } },
    (request) => packages.editStep(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/workflow/delete',
    {
      schema: {
        tags,
        summary: 'Delete a workflow step; answers the remaining steps',
        body: ZWorkflowDeleteRequest,
        response: responses(ZWorkflowSteps),
      },
    },
    async (request) => ({ data: await packages.deleteStep(request.body, callerOf(request)) }),
  );

  app.post(
    '/ui/package/workflow/reorder',
    {
      schema: {
        tags,
        summary: 'Reorder the steps (stepIds: every step exactly once)',
        body: ZWorkflowReorderRequest,
        response: responses(ZWorkflowSteps),
      },
    },
    async (request) => ({ data: await packages.reorderSteps(request.body, callerOf(request)) }),
  );

  // files

  app.post(
    '/ui/package/files/upload',
    {
      schema: {
        tags,
        summary: 'Upload a file (multipart: dsiId and isPublic first, then file); streamed, private files encrypted at rest',
        consumes: ['multipart/form-data'],
        response: responses(ZPackageFile),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const fields: Record<string, string> = {};
      let uploaded: TPackageFile | undefined;
      for await (const part of formParts(request)) {
        if (part.type === 'field') {
          fields[part.fieldname] = String(part.value);
          continue;
        }
        if (part.fieldname !== 'file' || uploaded) {
          part.file.resume();
          continue;
        }
        try {
          if (fields.dsiId === undefined || fields.isPublic === undefined)
            throw new AppError('packageFileFieldsFirst', { field: 'file' });
          uploaded = await packageFiles.upload(
            {
              dsiId: identifierField(fields.dsiId, 'dsiId', ZDsiId),
              isPublic: booleanField(fields.isPublic, 'isPublic'),
              fileName: part.filename,
              contentType: part.mimetype,
              stream: pipeline(part.file, failOnTruncation(part.file, config.uploadMaxBytes), () => undefined),
            },
            caller,
          );
        } catch (error) {
          part.file.resume();
          throw error;
        }
      }
      if (!uploaded) throw new AppError('uploadFileMissing', { field: 'file' });
      return uploaded;
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
      schema: {
        tags,
        summary: 'Download a file (private files: ADMIN, decrypted on the fly; each access is audited)',
        querystring: ZFileIdQuery,
      },
    },
    async (request, reply) => {
      const opened = await packageFiles.open(request.query.fileId, callerOf(request));
      reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', attachmentDisposition(opened.file.fileName))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .header('x-content-sha256', opened.file.sha256);
      // A private file's length is only known for sure once its tag verified: sent chunked, so a
      // failed check aborts the response instead of completing it.
      if (opened.file.isPublic) reply.header('content-length', String(opened.size));
      return reply.send(opened.stream);
    },
  );

  // device templates

  app.get(
    '/ui/package/device-template/schema',
    { schema: { tags, summary: 'JSON Schema of the device template file' } },
    async (_request, reply) => reply.header('content-type', 'application/schema+json').send(deviceTemplateJsonSchema()),
  );

  app.get(
    '/ui/package/device-template/list',
    {
      schema: {
        tags,
        summary: 'Device templates, a page at a time (filters: dsiId, name)',
        querystring: ZDeviceTemplateListQuery,
        response: responses(ZPage(ZDeviceTemplate)),
      },
    },
    (request) => {
      const { dsiId, name, ...page } = request.query;
      return deviceTemplates.list(page, { dsiId, name });
    },
  );

  app.get(
    '/ui/package/device-template/fetch',
    {
      schema: {
        tags,
        summary: 'A device template with its parameters',
        querystring: z.object({ deviceTemplateId: z.uuid() }),
        response: responses(ZDeviceTemplateDetail),
      },
    },
    (request) => deviceTemplates.fetch(request.query.deviceTemplateId),
  );

  app.post(
    '/ui/package/device-template/import',
    {
      schema: {
        tags,
        summary: 'Import a device template (multipart: file = JSON of the template format; optional dsiId to attach it)',
        consumes: ['multipart/form-data'],
        response: responses(ZDeviceTemplate),
      },
    },
    async (request) => {
      const fields: Record<string, string> = {};
      let file: Buffer | undefined;
      for await (const part of formParts(request)) {
        if (part.type === 'field') fields[part.fieldname] = String(part.value);
        else if (part.fieldname === 'file' && !file) file = await readSmallFile(part.file, TEMPLATE_MAX_BYTES);
        else part.file.resume();
      }
      if (!file) throw new AppError('uploadFileMissing', { field: 'file' });
      const dsiId = fields.dsiId ? identifierField(fields.dsiId, 'dsiId', ZDsiId) : undefined;
      return deviceTemplates.import({ file, dsiId }, callerOf(request));
    },
  );

  app.post(
    '/ui/package/device-template/delete',
    {
      schema: {
        tags,
        summary: 'Delete a device template (refused while a step applies it)',
        body: ZDeviceTemplateDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await deviceTemplates.delete(request.body, callerOf(request));
      return {};
    },
  );

  // design archive

  app.get(
    '/ui/das/list',
    {
      schema: {
        tags: ['das'],
        summary: 'DSI entries (built revisions), newest first (filter: dsiId)',
        querystring: ZDasListQuery,
        response: responses(ZPage(ZDsiEntry)),
      },
    },
    (request) => {
      const { dsiId, ...page } = request.query;
      return packages.listRevisions(page, dsiId);
    },
  );

  app.get(
    '/ui/das/fetch',
    {
      schema: {
        tags: ['das'],
        summary: 'A DSI entry with its exact manifest bytes',
        querystring: ZRevisionQuery,
        response: responses(ZDsiRevision),
      },
    },
    (request) => packages.fetchRevision(request.query.revisionId),
  );
};
