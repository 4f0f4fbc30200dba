import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ZDeviceId, ZDtl, ZId, ZPeerMessageResponse } from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { identifierField, streamFormFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { withForm } from '../../lib/form-files.js';
import { receivePeerForm } from '../outbox/peer-form.js';
import { callerOf } from '../../plugins/auth.js';

const ZDtlAuthorizationId = ZId('authorizationNotAvailable');

/** The multipart form of `/mpf/dtl`: a machine's upload token, or a peer's message, before the file. */
const ZMachineDataPartnerForm = z
  .object({
    token: z.string().optional().meta({ description: 'A machine: its upload token (from /stp/upload/token, purpose dtl)' }),
    message: z
      .string()
      .optional()
      .meta({ description: 'A Manage peer: the signed outbox message (JSON {aplType, apl, signature})' }),
    file: z.string().meta({ format: 'binary', description: 'The data file, streamed' }),
  })
  .meta({ description: 'multipart/form-data fields: token or message before file' });

/** The multipart form of `storage/dtl/upload` (its text fields are read before the file). */
const ZMachineDataUploadForm = z
  .object({
    deviceId: ZDeviceId.meta({ description: 'The machine the data comes from' }),
    authorizationId: ZDtlAuthorizationId.optional().meta({ description: 'The authorization the data was made under' }),
    file: z.string().meta({ format: 'binary', description: 'The data file, streamed' }),
  })
  .meta({ description: 'multipart/form-data fields: deviceId and authorizationId before file' });

/** Machine data in: from machines with their upload token, from the console (docs/traceability.md). */
export const machineDataRoutes: FastifyPluginAsyncZod = async (app) => {
  const { machineData, config, peerMessages } = app.services;

  app.post(
    '/mpf/dtl',
    {
      config: { multipartForm: ZMachineDataPartnerForm },
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
      config: { multipartForm: ZMachineDataUploadForm },
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
      return streamFormFile(request, config.uploadMaxBytes, async (fields, file) => {
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
