import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deviceTemplateJsonSchema,
  ZDeviceTemplate,
  ZDeviceTemplateDeleteRequest,
  ZDeviceTemplateDetail,
  ZDeviceTemplateId,
  ZDeviceTemplateListQuery,
  ZEmpty,
  ZPage,
  ZDsiId,
} from '@manifold/contract';
import { identifierField, readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { TEMPLATE_MAX_BYTES } from './device-templates.service.js';

/** The multipart form of `package/device-template/import`. */
const ZDeviceTemplateImportForm = z.object({
  file: z.string().meta({ format: 'binary', description: 'JSON of the device template format' }),
  dsiId: ZDsiId.optional().meta({ description: 'A design package to attach the imported template to' }),
});

/** Device templates: the library and those of a package. */
export const deviceTemplatesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { deviceTemplates } = app.services;
  const tags = ['packages'];

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
        querystring: z.object({ deviceTemplateId: ZDeviceTemplateId }),
        response: responses(ZDeviceTemplateDetail),
      },
    },
    (request) => deviceTemplates.fetch(request.query.deviceTemplateId),
  );

  app.post(
    '/ui/package/device-template/import',
    {
      config: { multipartForm: ZDeviceTemplateImportForm },
      schema: {
        tags,
        summary: 'Import a device template (multipart: file = JSON of the template format; optional dsiId to attach it)',
        consumes: ['multipart/form-data'],
        response: responses(ZDeviceTemplate),
      },
    },
    async (request) => {
      const form = await readSmallForm(request, TEMPLATE_MAX_BYTES);
      const file = requiredFile(form);
      const dsiId = form.fields.dsiId ? identifierField(form.fields.dsiId, 'dsiId', ZDsiId) : undefined;
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
};
