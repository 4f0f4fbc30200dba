import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Readable } from 'node:stream';
import {
  ZErrorResponse,
  ZInspectionListQuery,
  ZInspectionPictureQuery,
  ZInspectionRequest,
  ZInspectionTarget,
  ZInspectionTargetQuery,
  ZInspectionResponse,
  ZInspection,
  ZPage,
  ZQualitySearchRequest,
  ZQualitySearchResponse,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { attachmentDisposition, sanitizeFileName } from '../../lib/file-names.js';
import { formParts, readSmallFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { uploadError } from '../../lib/upload-errors.js';
import { callerOf } from '../../plugins/auth.js';
import { IMAGE_MAX_BYTES, sniffImage } from '../images/images.js';
import { parseFormJson } from './form-json.js';
import type { CheckedInspection, StoredPicture } from './inspections.service.js';

/** At most this many pictures per inspection (each an image of at most `IMAGE_MAX_BYTES`). */
const PICTURES_MAX = 10;

/** The multipart form of `qms/inspection` (the inspection is read before the pictures). */
const ZInspectionForm = z
  .object({
    inspection: z.string().meta({ description: 'JSON of the inspection request' }),
    picture: z
      .array(z.string().meta({ format: 'binary', description: 'PNG, JPEG or WebP, at most 5 MiB' }))
      .max(PICTURES_MAX)
      .optional(),
  })
  .meta({ description: 'multipart/form-data fields: inspection before up to 10 picture files' });

/** Quality (docs/quality.md): inspections and the parts search with its statistics. */
export const qualityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { inspections, partsSearch, storage } = app.services;
  const tags = ['quality'];

  app.post(
    '/ui/qms/inspection',
    {
      config: { multipartForm: ZInspectionForm },
      schema: {
        tags,
        summary:
          'Inspect a part or every part of a build (multipart: the field `inspection`, JSON, then up to 10 `picture` files: PNG, JPEG or WebP of at most 5 MiB)',
        consumes: ['multipart/form-data'],
        response: responses(ZInspectionResponse),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      let checked: CheckedInspection | undefined;
      const pictures: StoredPicture[] = [];
      try {
        for await (const part of formParts(request, { files: PICTURES_MAX + 1 })) {
          if (part.type === 'field') {
            if (part.fieldname === 'inspection' && !checked) {
              checked = await inspections.check(parseFormJson(ZInspectionRequest, String(part.value), 'inspection'));
            }
            continue;
          }
          if (part.fieldname !== 'picture') {
            part.file.resume();
            continue;
          }
          try {
            if (!checked) throw new AppError('inspectionFieldsFirst', { field: 'picture' });
            if (pictures.length >= PICTURES_MAX) {
              throw new AppError('payloadTooLarge', { field: 'picture', description: `At most ${PICTURES_MAX} pictures` });
            }
            const bytes = await readSmallFile(part.file, IMAGE_MAX_BYTES, 'picture');
            const kind = sniffImage(bytes);
            if (!kind) throw new AppError('imageTypeNotSupported', { field: `picture[${pictures.length}]` });
            const stored = await storage.put(Readable.from([bytes])).catch((error: unknown) => {
              throw uploadError(error, 'picture');
            });
            pictures.push({
              key: stored.key,
              fileName: sanitizeFileName(part.filename),
              contentType: kind.contentType,
              size: stored.size,
              sha256: stored.sha256,
            });
          } catch (error) {
            part.file.resume();
            throw error;
          }
        }
      } catch (error) {
        for (const picture of pictures) await storage.delete(picture.key);
        throw error;
      }
      if (!checked)
        throw new AppError('malformedRequest', { field: 'inspection', description: 'The form has no inspection field' });
      return { data: await inspections.record(checked, pictures, caller) };
    },
  );

  app.get(
    '/ui/qms/inspection',
    {
      schema: {
        tags,
        summary: 'Inspections, newest first (filters: partId, buildId)',
        querystring: ZInspectionListQuery,
        response: responses(ZPage(ZInspection)),
      },
    },
    (request) => {
      const { partId, buildId, ...page } = request.query;
      return inspections.list(page, { partId, buildId });
    },
  );

  app.get(
    '/ui/qms/inspection/parameters',
    {
      schema: {
        tags,
        summary:
          'What an inspection of a part (or every part of a build) asks for: the parts and the quality parameters with their bounds',
        querystring: ZInspectionTargetQuery,
        response: responses(ZInspectionTarget),
      },
    },
    (request) => inspections.target(request.query),
  );

  app.get(
    '/ui/qms/inspection/picture',
    { schema: { tags, summary: 'One picture of an inspection', querystring: ZInspectionPictureQuery } },
    async (request, reply) => {
      const { picture, stream } = await inspections.picture(request.query.inspectionId, request.query.index);
      return reply
        .header('content-type', picture.contentType)
        .header('content-disposition', attachmentDisposition(picture.fileName))
        .header('content-length', String(picture.size))
        .header('x-content-type-options', 'nosniff')
        .header('x-content-sha256', picture.sha256)
        .header('cache-control', 'private, max-age=3600')
        .send(stream);
    },
  );

  app.post(
    '/ui/qms/parts/search',
    {
      config: { compressAnswer: true },
      schema: {
        tags,
        summary:
          'Inspected parts (passed and failed, each paged) with the filtering applied and statistics; 406 for a search it cannot answer',
        body: ZQualitySearchRequest,
        response: { ...responses(ZQualitySearchResponse), 406: ZErrorResponse },
      },
    },
    (request) => partsSearch.search(request.body),
  );
};
