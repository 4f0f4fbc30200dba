import { pipeline } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { ZDeviceId, ZDtl, ZId, ZPeerMessageResponse, type TDtl } from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { failOnTruncation, formParts, identifierField } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { withForm } from '../../lib/form-files.js';
import { receivePeerForm } from '../outbox/peer-form.js';
import { callerOf } from '../../plugins/auth.js';
import type { DtlFile } from './machine-data.service.js';

const ZDtlAuthorizationId = ZId('authorizationNotAvailable');

/**
 * Reads a multipart form whose text fields come first and whose `file` part is streamed to
 * `store` (other file parts are drained); a file before the fields `store` needs is refused by
 * `store` itself. No `file`: `uploadFileMissing`.
 */
async function streamedUpload(
  request: FastifyRequest,
  maxBytes: number,
  store: (fields: Record<string, string>, file: DtlFile) => Promise<TDtl>,
): Promise<TDtl> {
  const fields: Record<string, string> = {};
  let stored: TDtl | undefined;
  for await (const part of formParts(request)) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname !== 'file' || stored) {
      part.file.resume();
      continue;
    }
    try {
      stored = await store(fields, {
        fileName: part.filename,
        stream: pipeline(part.file, failOnTruncation(part.file, maxBytes), () => undefined),
      });
    } catch (error) {
      part.file.resume();
      throw error;
    }
  }
  if (!stored) throw new AppError('uploadFileMissing', { field: 'file' });
  return stored;
}

/** Machine data in: from machines with their upload token, from the console (docs/traceability.md). */
export const machineDataRoutes: FastifyPluginAsyncZod = async (app) => {
  const { machineData, config, peerMessages } = app.services;

  app.post(
    '/mpf/dtl',
    {
      schema: {
        tags: ['partner'],
        summary:
          'A machine uploads a data file (multipart: token — from /stp/upload/token, purpose dtl — then file), or a Manage peer delivers a transferred record (message, then file)',
        consumes: ['multipart/form-data'],
        response: responses(ZDtl.or(ZPeerMessageResponse)),
      },
    },
    (request) =>
      withForm(request, config.uploadMaxBytes, async (form) => {
        const fromPeer = await receivePeerForm(request, form, peerMessages, '/mpf/dtl');
        if (fromPeer) return fromPeer;
        const file = await form.next();
        if (!file) throw new AppError('uploadFileMissing', { field: 'file' });
        if (form.fields.token === undefined) throw new AppError('machineDataFieldsFirst', { field: 'file' });
        const grant = await machineData.checkUploadToken(form.fields.token);
        return machineData.receiveFromMachine(grant, file, request.ip);
      }),
  );

  app.post(
    '/ui/storage/dtl/upload',
    {
      schema: {
        tags: ['machine data'],
        summary:
          'Upload a machine\u2019s data file (multipart: deviceId, authorizationId?, then file); streamed, SHA-256 digested',
        consumes: ['multipart/form-data'],
        response: responses(ZDtl),
      },
    },
    (request) => {
      const caller = callerOf(request);
      return streamedUpload(request, config.uploadMaxBytes, async (fields, file) => {
        if (fields.deviceId === undefined) throw new AppError('machineDataFieldsFirst', { field: 'file' });
        const target = await machineData.checkConsoleTarget(
          {
            deviceId: identifierField(fields.deviceId, 'deviceId', ZDeviceId),
            authorizationId: fields.authorizationId?.trim()
              ? identifierField(fields.authorizationId, 'authorizationId', ZDtlAuthorizationId)
              : undefined,
          },
          caller,
        );
        return machineData.uploadFromConsole(target, file, caller);
      });
    },
  );
};
