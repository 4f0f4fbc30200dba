import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZDasTransferRequest,
  ZDesignReceived,
  ZDtlTransferRequest,
  ZFssPayload,
  ZFssRegisterRequest,
  ZFssRegisterRequestResponse,
  ZPeerMessageResponse,
  ZTransferResponse,
  type TFssPayload,
} from '@manifold/contract';
import { CONTENT_OVERHEAD_BYTES } from '../../crypto/design-keys.js';
import { AppError } from '../../lib/app-error.js';
import { withForm } from '../../lib/form-files.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { receivePeerForm } from '../outbox/peer-form.js';
import type { FssService } from './fss.service.js';
import type { PeerTransfers } from './transfers.service.js';

/** A design package: up to 1000 files (each a private file's ciphertext at most), a manifest of up to 4 MiB in its field. */
const designFormLimits = (uploadMaxBytes: number) => ({
  files: 1000,
  parts: 1010,
  fields: 10,
  fieldSize: 8 * 1024 * 1024,
  fileSize: uploadMaxBytes + CONTENT_OVERHEAD_BYTES,
});

/** The multipart form of `/mpf/design`: a peer's message, or a Protect's token and design, before the files. */
const ZDesignArrivalForm = z
  .object({
    message: z
      .string()
      .optional()
      .meta({ description: 'A Manage peer: the signed outbox message (JSON {aplType, apl, signature})' }),
    token: z.string().optional().meta({ description: 'A Protect: its upload token (from /fss/getUploadToken)' }),
    design: z.string().optional().meta({ description: 'A Protect: the design package, JSON' }),
    file: z.array(z.string().meta({ format: 'binary', description: 'A file of the design package' })).optional(),
  })
  .meta({ description: 'multipart/form-data fields: message, or token and design, before the files' });

/** `das/transfer`, `dtl/transfer`, `/mpf/design` and the FSS calls (docs/peer-network.md). */
export function peerDesignsRoutes(transfers: PeerTransfers, fss: FssService): FastifyPluginAsyncZod {
  return async (app) => {
    const { peerMessages, config } = app.services;

    app.post(
      '/ui/das/transfer',
      {
        schema: {
          tags: ['design archive'],
          summary:
            'Send the newest built revision of a design to an approved Manage instance (outbox; content keys wrapped for it)',
          body: ZDasTransferRequest,
          response: responses(ZTransferResponse),
        },
      },
      (request) => transfers.transferDesign(request.body, callerOf(request)),
    );

    app.post(
      '/ui/dtl/transfer',
      {
        schema: {
          tags: ['machine data'],
          summary: 'Send a machine data record with its file to an approved Manage instance (outbox)',
          body: ZDtlTransferRequest,
          response: responses(ZTransferResponse),
        },
      },
      (request) => transfers.transferDtl(request.body, callerOf(request)),
    );

    app.post(
      '/mpf/design',
      {
        config: { multipartForm: ZDesignArrivalForm },
        schema: {
          tags: ['partner'],
          summary:
            'A design package arrives (multipart): from a Manage peer the signed outbox message (field message) then the files; from a Protect its upload token (field token), the package (field design) then the files',
          consumes: ['multipart/form-data'],
          response: responses(ZPeerMessageResponse.or(ZDesignReceived)),
        },
      },
      (request) =>
        withForm(
          request,
          config.uploadMaxBytes,
          async (form) => {
            const fromPeer = await receivePeerForm(request, form, peerMessages, '/mpf/design');
            if (fromPeer) return fromPeer;
            if (form.fields.token === undefined) {
              throw new AppError('fssTokenNotFound', {
                field: 'token',
                description: 'Send the field message (a peer) or token (a Protect) before the files',
              });
            }
            return fss.publishDesign(form.fields.token, form.fields.design, form, request.ip);
          },
          designFormLimits(config.uploadMaxBytes),
        ),
    );

    const tags = ['partner'];
    app.post(
      '/fss/protect/register-request',
      {
        schema: {
          tags,
          summary: 'A Protect names its token1 and learns this instance\u2019s certificates and address',
          body: ZFssRegisterRequest,
          response: responses(ZFssRegisterRequestResponse),
        },
      },
      (request) => fss.registerRequest(request.body.token),
    );
    const payloadCall = (path: string, summary: string, run: (body: TFssPayload, sourceIp: string) => Promise<TFssPayload>) =>
      app.post(path, { schema: { tags, summary, body: ZFssPayload, response: responses(ZFssPayload) } }, (request) =>
        run(request.body, request.ip),
      );
    payloadCall(
      '/fss/protect/register',
      'A Protect registers with its token pair (payload: claims token1, token2, name, certificates, timestamp, nonce)',
      (body) => fss.register(body),
    );
    payloadCall(
      '/fss/order',
      'An approved Protect places an order (payload claims: protectId, timestamp, nonce, authorizationAuthorizedPolicyList)',
      (body, ip) => fss.order(body, ip),
    );
    payloadCall(
      '/fss/getUploadToken',
      'An approved Protect gets a one-time token to publish a design at /mpf/design (15 minutes)',
      (body) => fss.uploadToken(body),
    );
    payloadCall(
      '/fss/delete',
      'An approved Protect deletes a design it published (payload claims: protectId, timestamp, nonce, dsiId)',
      (body, ip) => fss.delete(body, ip),
    );
  };
}
