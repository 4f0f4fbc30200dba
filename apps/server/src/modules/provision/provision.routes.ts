import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZCsrQuery,
  ZCsrResponse,
  ZErrorResponse,
  ZProvisionCertificates,
  ZProvisionRequest,
  ZProvisionResponse,
  ZProvisionUploadForm,
  ZProvisionUploadResponse,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { readProvisionUpload } from './provision-upload.js';

export const provisionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { provision } = app.services;

  app.post(
    '/ui/admin/provision',
    {
      schema: {
        tags: ['provision'],
        summary:
          'Create the signing and encryption key pairs (RSA 3072 or EC P-256); rekey: true replaces them and drops their certificates',
        body: ZProvisionRequest,
        response: responses(ZProvisionResponse),
      },
    },
    (request) => provision.provision(request.body, callerOf(request)),
  );

  app.get(
    '/ui/admin/provision',
    {
      schema: {
        tags: ['provision'],
        summary:
          'PEM certificate signing requests: csr signing, encryption or both (default); service manage (default), trace, enforce or protect',
        querystring: ZCsrQuery,
        response: responses(ZCsrResponse),
      },
    },
    (request) => provision.csrs(request.query),
  );

  app.post(
    '/ui/admin/upload/provision',
    {
      config: { multipartForm: ZProvisionUploadForm },
      schema: {
        tags: ['provision'],
        summary:
          'Upload a PEM certificate (optionally followed by its chain) for the signing or encryption key, or a network root (certificateType trustAnchor)',
        consumes: ['multipart/form-data'],
        response: { ...responses(ZProvisionUploadResponse), 413: ZErrorResponse },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const upload = await readProvisionUpload(request);
      if (upload.pem === undefined) throw new AppError('uploadFileMissing', { field: 'file' });
      return provision.upload(upload.certificateType, upload.pem, caller);
    },
  );

  app.get(
    '/ui/admin/provision/certificates',
    {
      schema: {
        tags: ['provision'],
        summary: 'Key type, installed certificates and trust anchors of this server',
        response: responses(ZProvisionCertificates),
      },
    },
    () => provision.certificates(),
  );

  app.post(
    '/ui/admin/provision/development-ca',
    {
      schema: {
        tags: ['provision'],
        summary:
          'DEVELOPMENT ONLY (DEVELOPMENT_CA=true): create a local network CA, trust it and install certificates it issues for both key pairs',
        response: responses(ZProvisionCertificates),
      },
    },
    (request) => provision.createDevelopmentCa(callerOf(request)),
  );
};
