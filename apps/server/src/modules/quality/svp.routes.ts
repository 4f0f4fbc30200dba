import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZBuildId,
  ZEmpty,
  ZPage,
  ZPageQuery,
  ZPartId,
  ZSvpAddRequest,
  ZSvpDeleteRequest,
  ZSvpEditRequest,
  ZSvpListQuery,
  ZSvpManualAddRequest,
  ZSvpManualEditRequest,
  ZSvpParameterId,
  ZSvpTemplate,
  ZSvpType,
  ZSvpTypeAddRequest,
  ZSvpValue,
  ZSvpValueDeleteRequest,
  ZSvpValueFileQuery,
  ZSvpValueId,
  ZSvpValueListQuery,
} from '@manifold/contract';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import { attachmentDisposition, sanitizeContentType, sanitizeFileName } from '../../lib/file-names.js';
import { formFileStream, formParts, identifierField } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { uploadError } from '../../lib/upload-errors.js';
import { callerOf } from '../../plugins/auth.js';
import type { StoredValueFile } from './svp.service.js';

/** The multipart form of `svp-value/file/add` (its text fields are read before the file). */
const ZSvpFileAddForm = z
  .object({
    parameterId: ZSvpParameterId.meta({ description: 'The trace parameter the value is of' }),
    partId: ZPartId.optional().meta({ description: 'The part the value is for' }),
    buildId: ZBuildId.optional().meta({ description: 'The build the value is for' }),
    file: z.string().meta({ format: 'binary', description: 'The file, streamed and digested' }),
  })
  .meta({ description: 'multipart/form-data fields: parameterId, partId and buildId before file' });

/** The multipart form of `svp-value/file/edit` (its text fields are read before the file). */
const ZSvpFileEditForm = z
  .object({
    id: ZSvpValueId.meta({ description: 'The file value to replace the file of' }),
    parameterId: ZSvpParameterId.meta({ description: 'Its trace parameter' }),
    file: z.string().meta({ format: 'binary', description: 'The new file, streamed and digested' }),
  })
  .meta({ description: 'multipart/form-data fields: id and parameterId before file' });

/** Trace parameters (docs/quality.md): types, templates, values. */
export const svpRoutes: FastifyPluginAsyncZod = async (app) => {
  const { svp, storage, config } = app.services;
  const tags = ['trace parameters'];

  /**
   * Reads a form whose text fields come first, checks them with `check` before the `file` part is
   * streamed to storage (counted and digested), and answers the fields and the stored file.
   */
  async function fileForm<F>(
    request: FastifyRequest,
    check: (fields: Record<string, string>) => Promise<F>,
  ): Promise<{ fields: F; file: StoredValueFile }> {
    const raw: Record<string, string> = {};
    let result: { fields: F; file: StoredValueFile } | undefined;
    for await (const part of formParts(request)) {
      if (part.type === 'field') {
        raw[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || result) {
        part.file.resume();
        continue;
      }
      try {
        const fields = await check(raw);
        const stored = await storage
          .put(formFileStream(part.file, config.uploadMaxBytes), { maxBytes: config.uploadMaxBytes })
          .catch((error: unknown) => {
            throw uploadError(error);
          });
        result = {
          fields,
          file: {
            key: stored.key,
            fileName: sanitizeFileName(part.filename),
            contentType: sanitizeContentType(part.mimetype),
            size: stored.size,
            sha256: stored.sha256,
          },
        };
      } catch (error) {
        part.file.resume();
        throw error;
      }
    }
    if (!result) throw new AppError('uploadFileMissing', { field: 'file' });
    return result;
  }

  const optionalId = (value: string | undefined, field: string, schema: typeof ZPartId) =>
    value === undefined || value === '' ? undefined : identifierField(value, field, schema);

  app.post(
    '/ui/svp-type/add',
    { schema: { tags, summary: 'Add a trace parameter type', body: ZSvpTypeAddRequest, response: responses(ZSvpType) } },
    (request) => svp.addType(request.body, callerOf(request)),
  );

  app.get(
    '/ui/svp-type/list',
    { schema: { tags, summary: 'Trace parameter types by name', querystring: ZPageQuery, response: responses(ZPage(ZSvpType)) } },
    (request) => svp.listTypes(request.query),
  );

  app.post(
    '/ui/svp/add',
    { schema: { tags, summary: 'Add a trace parameter template', body: ZSvpAddRequest, response: responses(ZSvpTemplate) } },
    (request) => svp.addTemplate(request.body, callerOf(request)),
  );

  app.post(
    '/ui/svp/edit',
    {
      schema: {
        tags,
        summary: 'Replace a template (parameters named by parameterId are kept with their values)',
        body: ZSvpEditRequest,
        response: responses(ZSvpTemplate),
      },
    },
    (request) => svp.editTemplate(request.body, callerOf(request)),
  );

  app.post(
    '/ui/svp/delete',
    { schema: { tags, summary: 'Delete a template without values', body: ZSvpDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await svp.deleteTemplate(request.body.id, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/svp/list',
    {
      schema: {
        tags,
        summary: 'Trace parameter templates by name (filter: typeId)',
        querystring: ZSvpListQuery,
        response: responses(ZPage(ZSvpTemplate)),
      },
    },
    (request) => {
      const { typeId, ...page } = request.query;
      return svp.listTemplates(page, { typeId });
    },
  );

  app.post(
    '/ui/svp-value/manual/add',
    {
      schema: {
        tags,
        summary: 'Record a manual entry (value) or a machine data reference (dtlId)',
        body: ZSvpManualAddRequest,
        response: responses(ZSvpValue),
      },
    },
    (request) => svp.addManual(request.body, callerOf(request)),
  );

  app.post(
    '/ui/svp-value/manual/edit',
    {
      schema: {
        tags,
        summary: 'Change a manual entry or a machine data reference',
        body: ZSvpManualEditRequest,
        response: responses(ZSvpValue),
      },
    },
    (request) => svp.editManual(request.body, callerOf(request)),
  );

  app.post(
    '/ui/svp-value/file/add',
    {
      config: { multipartForm: ZSvpFileAddForm },
      schema: {
        tags,
        summary: 'Record a file value (multipart: parameterId, partId, buildId first, then file); streamed and digested',
        consumes: ['multipart/form-data'],
        response: responses(ZSvpValue),
      },
    },
    async (request) => {
      const { fields, file } = await fileForm(request, async (raw) => {
        const target = {
          parameterId: identifierField(raw.parameterId, 'parameterId', ZSvpParameterId),
          partId: optionalId(raw.partId, 'partId', ZPartId),
          buildId: optionalId(raw.buildId, 'buildId', ZBuildId),
        };
        await svp.checkFileTarget(target);
        return target;
      });
      return svp.addFile(fields, file, callerOf(request));
    },
  );

  app.post(
    '/ui/svp-value/file/edit',
    {
      config: { multipartForm: ZSvpFileEditForm },
      schema: {
        tags,
        summary: 'Replace a file value\u2019s file (multipart: id, parameterId first, then file)',
        consumes: ['multipart/form-data'],
        response: responses(ZSvpValue),
      },
    },
    async (request) => {
      const { fields, file } = await fileForm(request, async (raw) => {
        const target = {
          id: identifierField(raw.id, 'id', ZSvpValueId),
          parameterId: identifierField(raw.parameterId, 'parameterId', ZSvpParameterId),
        };
        await svp.checkFileEdit(target);
        return target;
      });
      return svp.editFile(fields, file, callerOf(request));
    },
  );

  app.get(
    '/ui/svp-value/file',
    { schema: { tags, summary: 'Download a file value', querystring: ZSvpValueFileQuery } },
    async (request, reply) => {
      const { value, stream } = await svp.openFile(request.query.id);
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', attachmentDisposition(value.file!.fileName))
        .header('content-length', String(value.file!.size))
        .header('x-content-type-options', 'nosniff')
        .header('x-content-sha256', value.file!.sha256)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.post(
    '/ui/svp-value/delete',
    { schema: { tags, summary: 'Delete a value (and its file)', body: ZSvpValueDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await svp.deleteValue(request.body.id, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/svp-value/list',
    {
      schema: {
        tags,
        summary: 'Values newest first (filters: partId — the part\u2019s values and its build\u2019s; buildId; parameterId)',
        querystring: ZSvpValueListQuery,
        response: responses(ZPage(ZSvpValue)),
      },
    },
    (request) => {
      const { partId, buildId, parameterId, ...page } = request.query;
      return svp.listValues(page, { partId, buildId, parameterId });
    },
  );
};
