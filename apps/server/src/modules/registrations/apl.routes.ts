import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  aplTypes,
  ZAplPeerRegistrationResponse,
  ZAplRegistrationRequest,
  ZAplRegistrationResponse,
  ZRegistrationStatus,
  ZRegistrationStatusQuery,
  type TAplRegistrationRequest,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { readSmallForm, requiredFile } from '../../lib/multipart-parts.js';
import { responses } from '../../lib/route-schemas.js';
import { parseJsonText } from '../../peers/http-client.js';
import type { NoticePath } from '../../peers/registration.client.js';
import { peerAplTypes, type PeerAplType } from './peer-registrations.service.js';

const isPeerApl = (input: TAplRegistrationRequest): input is TAplRegistrationRequest & { aplType: PeerAplType } =>
  (peerAplTypes as readonly string[]).includes(input.aplType);

/** The APL type a known but not yet served registration kind names, or an unknown one. */
function unserved(aplType: string): AppError {
  const known = (aplTypes as readonly string[]).includes(aplType);
  return new AppError('registrationExchangeInvalidApl', {
    field: 'aplType',
    description: known
      ? `Registrations of type ${aplType} are not served yet (served: enforce, protect, ${peerAplTypes.join(', ')})`
      : `Unknown aplType "${aplType}"; expected one of ${aplTypes.join(', ')}`,
  });
}

const noticeSummaries = {
  '/apl/registration/update':
    'A registered peer tells of its approval or rejection (signed apl {registrationNonce, registrationState, timestamp, nonce})',
  '/apl/registration/delete':
    'A registered peer cancels the registration (signed apl {registrationNonce, registrationState: Cancelled, timestamp, nonce})',
  '/apl/registration/status':
    'A registered peer suspends the registration or lifts its suspension (signed apl {registrationNonce, registrationState: Suspended or Approved, timestamp, nonce})',
} as const;

/** The multipart form of `enforce/apl/upload`. */
const ZAplUploadForm = z.object({
  file: z.string().meta({
    format: 'binary',
    description: 'The APL file: the JSON {aplType, apl, signature} the machine would post to /apl/registration/add',
  }),
});

/**
 * The partner entry points of registrations (spec §7 APL): machines (`enforce`), Manage peers
 * (`upstreamManage`, `downstreamManage`), Trace registrations (`trace`) and Protect instances
 * with their token pair (`protect`) come through one
 * `/apl/registration/add`; peers
 * tell each other of approvals and cancellations through `/update` and `/delete`.
 */
export const aplRoutes: FastifyPluginAsyncZod = async (app) => {
  const { devices, peerRegistrations, protectRegistrations } = app.services;

  app.post(
    '/apl/registration/add',
    {
      schema: {
        tags: ['partner'],
        summary:
          'A machine (aplType enforce), a Manage peer (upstreamManage, downstreamManage) an instance reporting to this Trace (trace) or a Protect with its token pair (protect) registers with a signed apl; the registration is Pending',
        body: ZAplRegistrationRequest,
        response: responses(z.union([ZAplRegistrationResponse, ZAplPeerRegistrationResponse])),
      },
    },
    (request) => {
      const input = request.body;
      if (isPeerApl(input)) return peerRegistrations.receive(input);
      if (input.aplType === 'enforce') return devices.register(input, request.ip);
      if (input.aplType === 'protect') return protectRegistrations.receive(input);
      throw unserved(input.aplType);
    },
  );

  for (const path of [
    '/apl/registration/update',
    '/apl/registration/delete',
    '/apl/registration/status',
  ] as const satisfies NoticePath[]) {
    app.post(
      path,
      {
        schema: {
          tags: ['partner'],
          summary: noticeSummaries[path],
          body: ZAplRegistrationRequest,
          response: responses(ZAplPeerRegistrationResponse),
        },
      },
      (request) => {
        const input = request.body;
        if (!isPeerApl(input)) throw unserved(input.aplType);
        return peerRegistrations.receiveNotice(input, path);
      },
    );
  }

  app.get(
    '/apl/registration/status',
    {
      schema: {
        tags: ['partner'],
        summary: 'The state this instance holds for the peer whose signing certificate has this serial number',
        querystring: ZRegistrationStatusQuery,
        response: responses(ZRegistrationStatus),
      },
    },
    async (request) => {
      const { keySerialNumber } = request.query;
      const registrationState = await peerRegistrations.stateOfKey(keySerialNumber);
      if (!registrationState) throw new AppError('registrationNotPresent', { field: 'keySerialNumber' });
      return { keySerialNumber, registrationState };
    },
  );

  app.post(
    '/ui/enforce/apl/upload',
    {
      config: { multipartForm: ZAplUploadForm },
      schema: {
        tags: ['devices'],
        summary:
          'Registers a machine that cannot reach this server from its APL file (multipart file: the JSON it would post to /apl/registration/add); Pending',
        consumes: ['multipart/form-data'],
        response: responses(ZAplRegistrationResponse),
      },
    },
    async (request) => {
      const file = requiredFile(await readSmallForm(request, APL_FILE_MAX_BYTES));
      const input = ZAplRegistrationRequest.safeParse(parseJsonText(file.toString('utf8')));
      if (!input.success) {
        throw new AppError('registrationExchangeInvalidApl', {
          field: 'file',
          description: 'The file is not an APL registration record ({aplType, apl, signature} as JSON)',
        });
      }
      if (input.data.aplType !== 'enforce') {
        throw new AppError('registrationExchangeInvalidApl', {
          field: 'aplType',
          description: 'An APL file registers a machine: aplType enforce',
        });
      }
      // an APL file may be old (the machine cannot reach this server): no five-minute window
      return devices.register(input.data, request.ip, 'file');
    },
  );
};

/** A machine's registration record: its certificates and a small picture (256 KiB) as a data URL, with room to spare. */
const APL_FILE_MAX_BYTES = 1024 * 1024;
