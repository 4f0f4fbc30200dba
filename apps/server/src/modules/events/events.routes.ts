import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZBuild,
  ZBuildListQuery,
  ZEpcisDocument,
  ZEventListQuery,
  ZPage,
  ZPart,
  ZPartHistoryWithValues,
  PART_HISTORY_MAX_VALUES,
  ZPartHistoryQuery,
  ZPartListQuery,
  ZStpEnvelope,
  ZTraceEventEntry,
  ZTraceEventBatchResult,
  ZTraceEventReceipt,
  ZTraceEventUploadResult,
  ZTraceHistory,
  ZTraceHistoryQuery,
} from '@manifold/contract';
import { readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** One XML event document is small; a file of events at most this many bytes. */
const EVENT_XML_MAX_BYTES = 256 * 1024;
const EVENT_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** A machine's batch (`/stp/event` with up to 1000 signed events) at most this many bytes. */
const EVENT_BATCH_MAX_BYTES = 8 * 1024 * 1024;

/** The multipart form of `event/upload`. */
const ZEventUploadForm = z.object({
  file: z.string().meta({ format: 'binary', description: 'A JSON file of signed events, as event/export writes them' }),
});

/** Events in (docs/traceability.md): machines report signed events, users upload files of them; events, builds and parts listed. */
export const eventsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { events, parts, svp } = app.services;
  const tags = ['events'];

  // `POST /apl/event` carries XML; the parser is this plugin's only (encapsulated)
  app.addContentTypeParser(
    ['application/xml', 'text/xml'],
    { parseAs: 'string', bodyLimit: EVENT_XML_MAX_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/apl/event',
    {
      schema: {
        tags: ['partner'],
        summary: 'A machine reports one event: a TraceEvent XML document with an enveloped signature by its signing key',
        consumes: ['application/xml'],
        body: z.string().min(1),
        response: responses(ZTraceEventReceipt),
      },
    },
    (request) => events.receiveXml(request.body, request.ip),
  );

  app.post(
    '/stp/event',
    {
      bodyLimit: EVENT_BATCH_MAX_BYTES,
      schema: {
        tags: ['stp'],
        summary:
          'A machine reports one event in a signed STP envelope (body: the event), or a batch of at most 1000: signed as a whole (body: {batch: [event]}) or each event with its own proof (body: {events: [{proof}]})',
        body: ZStpEnvelope,
        response: responses(z.union([ZTraceEventReceipt, ZTraceEventBatchResult])),
      },
    },
    (request) => events.receiveStp(request.body, request.ip),
  );

  app.post(
    '/ui/event/upload',
    {
      config: { multipartForm: ZEventUploadForm },
      schema: {
        tags,
        summary: 'A JSON file of signed events (multipart: file), as event/export writes them',
        consumes: ['multipart/form-data'],
        response: responses(ZTraceEventUploadResult),
      },
    },
    async (request) => events.upload(requiredFile(await readSmallForm(request, EVENT_FILE_MAX_BYTES)), callerOf(request)),
  );

  app.get(
    '/ui/event/export',
    {
      schema: {
        tags,
        summary: 'A machine\u2019s event history with the signed proofs, for `npm run verify-history`',
        querystring: ZTraceHistoryQuery,
        response: responses(ZTraceHistory),
      },
    },
    (request) => events.history(request.query.deviceId),
  );

  app.get(
    '/ui/event/list',
    {
      schema: {
        tags,
        summary: 'Trace events, newest first (filter: dsiId)',
        querystring: ZEventListQuery,
        response: responses(ZPage(ZTraceEventEntry)),
      },
    },
    (request) => {
      const { dsiId, ...page } = request.query;
      return events.list(page, { dsiId });
    },
  );

  app.get(
    '/ui/build/list',
    {
      schema: {
        tags,
        summary: 'Builds (the parts of one job), newest first (filters: dsiId, buildId)',
        querystring: ZBuildListQuery,
        response: responses(ZPage(ZBuild)),
      },
    },
    (request) => {
      const { dsiId, buildId, ...page } = request.query;
      return parts.buildList(page, { dsiId, buildId });
    },
  );

  app.get(
    '/ui/part/list',
    {
      schema: {
        tags,
        summary: 'Parts, newest first, each with the events of its job (filters: dsiId, serialNumber)',
        querystring: ZPartListQuery,
        response: responses(ZPage(ZPart)),
      },
    },
    (request) => {
      const { dsiId, serialNumber, ...page } = request.query;
      return parts.partList(page, { dsiId, serialNumber });
    },
  );
  app.get(
    '/ui/part/history',
    {
      schema: {
        tags,
        summary: 'A part\u2019s whole history: design revision, order, authorization, machine, job and events',
        querystring: ZPartHistoryQuery,
        response: responses(ZPartHistoryWithValues),
      },
    },
    async (request) => {
      const { partId } = request.query;
      const history = await parts.partHistory(partId);
      const values = await svp.listValues({ pageNum: 1, numberOfItems: PART_HISTORY_MAX_VALUES }, { partId });
      return { ...history, traceValues: values.data, traceValuesTruncated: values.totalNumOfItems > values.data.length };
    },
  );
  app.get(
    '/ui/part/epcis',
    {
      schema: {
        tags,
        summary: 'A part\u2019s history as an EPCIS 2.0 JSON-LD document, each event with its CBV 2.0 event hash',
        querystring: ZPartHistoryQuery,
        response: responses(ZEpcisDocument),
      },
    },
    (request) => parts.partEpcis(request.query.partId),
  );

  app.get(
    '/ui/event/epcis',
    {
      schema: {
        tags,
        summary: 'A page of the event search (filter: dsiId) as an EPCIS 2.0 JSON-LD document',
        querystring: ZEventListQuery,
        response: responses(ZEpcisDocument),
      },
    },
    (request) => {
      const { dsiId, ...page } = request.query;
      return events.epcis(page, { dsiId });
    },
  );
};
