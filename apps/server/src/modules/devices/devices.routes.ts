import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZDevice,
  ZDeviceApproveRequest,
  ZDeviceDeleteRequest,
  ZDeviceDetail,
  ZDeviceDisableRequest,
  ZDeviceId,
  ZDeviceIdQuery,
  ZDeviceImageParams,
  ZDeviceListQuery,
  ZEmpty,
  ZPage,
} from '@manifold/contract';
import { identifierField, readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { sendImage } from '../images/image-route.js';
import { IMAGE_MAX_BYTES } from '../images/images.js';

/** The multipart form of `device/image`. */
const ZDeviceImageForm = z.object({
  deviceId: ZDeviceId.meta({ description: 'The machine' }),
  file: z.string().meta({ format: 'binary', description: 'PNG, JPEG or WebP, at most 5 MiB' }),
});

export const devicesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { devices } = app.services;
  const tags = ['devices'];

  app.get(
    '/ui/device/list',
    {
      schema: {
        tags,
        summary: 'Machines, newest first (filters: approved; search in name, deviceId or serial number)',
        querystring: ZDeviceListQuery,
        response: responses(ZPage(ZDevice)),
      },
    },
    (request) => {
      const { approved, search, ...page } = request.query;
      return devices.list(page, { approved, search });
    },
  );

  app.get(
    '/ui/device/fetch',
    {
      schema: {
        tags,
        summary: 'A machine with its parameters and certificates',
        querystring: ZDeviceIdQuery,
        response: responses(ZDeviceDetail),
      },
    },
    (request) => devices.fetch(request.query.deviceId),
  );

  app.post(
    '/ui/device/approve',
    {
      schema: {
        tags,
        summary: 'Approve (approve: true) or reject (false) a registration',
        body: ZDeviceApproveRequest,
        response: responses(ZDevice),
      },
    },
    (request) => devices.approve(request.body, callerOf(request)),
  );

  app.post(
    '/ui/device/disable',
    {
      schema: {
        tags,
        summary: 'Disable a machine (disabled: false enables it again)',
        body: ZDeviceDisableRequest,
        response: responses(ZDevice),
      },
    },
    (request) => devices.setDisabled(request.body, callerOf(request)),
  );

  app.post(
    '/ui/device/delete',
    {
      schema: {
        tags,
        summary: 'Deregister a machine (refused while it holds live authorizations unless forceDelete)',
        body: ZDeviceDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await devices.delete(request.body, callerOf(request));
      return {};
    },
  );

  app.post(
    '/ui/device/image',
    {
      config: { multipartForm: ZDeviceImageForm },
      schema: {
        tags,
        summary: 'Set a machine picture (multipart: deviceId, file = PNG, JPEG or WebP, at most 5 MiB)',
        consumes: ['multipart/form-data'],
        response: responses(ZDevice),
      },
    },
    async (request) => {
      const form = await readSmallForm(request, IMAGE_MAX_BYTES);
      const bytes = requiredFile(form);
      return devices.setImage(
        { deviceId: identifierField(form.fields.deviceId, 'deviceId', ZDeviceId), bytes },
        callerOf(request),
      );
    },
  );

  app.get(
    '/ui/device/image/:image',
    { schema: { tags, summary: 'A machine picture by its name', params: ZDeviceImageParams } },
    (request, reply) => sendImage(app, reply, request.params.image, 'device'),
  );
};
