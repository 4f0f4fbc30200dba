import type { FastifyRequest } from 'fastify';
import { type TPeerMessageResponse, ZAplRegistrationRequest } from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import type { openForm } from '../../lib/form-files.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';
import type { FilePath } from '../../peers/registration.client.js';
import { peerAplTypes, type PeerAplType } from '../registrations/peer-registrations.service.js';
import type { PeerMessagesService } from './peer-messages.service.js';

/**
 * A form that carries a peer's signed outbox message (field `message`, JSON `{aplType, apl,
 * signature}`) and then its files (`/mpf/design`, `/mpf/dtl`): handed to the receiving side of the
 * outbox. `undefined` when the form has no `message` field (the route's other callers: a Protect,
 * a machine).
 */
export async function receivePeerForm(
  request: FastifyRequest,
  form: Awaited<ReturnType<typeof openForm>>,
  messages: PeerMessagesService,
  path: FilePath,
): Promise<TPeerMessageResponse | undefined> {
  const raw = form.fields.message;
  if (raw === undefined) return undefined;
  // held to what a JSON body is: one leading byte order mark skipped, NUL and the like refused
  const json = parseCarryableJson(
    raw,
    'message',
    () => new AppError('registrationExchangeInvalidApl', { field: 'message', description: 'The message is not JSON' }),
  );
  const parsed = ZAplRegistrationRequest.safeParse(json);
  if (!parsed.success) {
    throw new AppError('registrationExchangeInvalidApl', { field: 'message', description: 'The message is not a signed apl' });
  }
  if (!(peerAplTypes as readonly string[]).includes(parsed.data.aplType)) {
    throw new AppError('registrationExchangeInvalidApl', {
      field: 'aplType',
      description: `Peer messages come from ${peerAplTypes.join(', ')}`,
    });
  }
  return messages.receive(parsed.data as typeof parsed.data & { aplType: PeerAplType }, request.ip, { path, files: form });
}
