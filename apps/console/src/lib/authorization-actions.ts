import { ZAuthorization, ZAuthorizationSendResponse, type TAuthorization } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from './api-client';
import { saveText } from './download';
import { invalidateTagged } from './query-tags';

/**
 * Send, revoke and download of authorizations (spec §7): shared by the order detail and the
 * authorization list, which both show authorizations with these actions.
 */
export const ZSendAuthorizationsInput = z.object({
  orderId: z.string(),
  /** Absent: every live authorization of the order (spec §5). */
  authorizationId: z.string().optional(),
});
export type SendAuthorizationsInput = z.infer<typeof ZSendAuthorizationsInput>;

export function sendAuthorizations(input: SendAuthorizationsInput) {
  const { orderId, authorizationId } = ZSendAuthorizationsInput.parse(input);
  const body = authorizationId ? { orderId, authorizationId, sendAll: null } : { orderId, sendAll: true };
  return apiRequest('POST /ui/authorization/send', ZAuthorizationSendResponse, { body });
}

export const ZRevokeAuthorizationInput = z.object({ orderId: z.string(), authorizationId: z.string() });
export type RevokeAuthorizationInput = z.infer<typeof ZRevokeAuthorizationInput>;

export function revokeAuthorization(input: RevokeAuthorizationInput): Promise<TAuthorization> {
  return apiRequest('POST /ui/authorization/revoke', ZAuthorization, { body: ZRevokeAuthorizationInput.parse(input) });
}

/**
 * Saves the signed XML of an authorization as a file. The answer is XML, not JSON: the client
 * hands a body it cannot parse as JSON through as text, so the §8 error mapping still applies.
 */
export async function downloadAuthorization(input: RevokeAuthorizationInput): Promise<void> {
  const query = ZRevokeAuthorizationInput.parse(input);
  const xml = await apiRequest('GET /ui/authorization/download', z.string().min(1), { query });
  saveText(xml, `authorization-${query.authorizationId}.xml`, 'application/xml');
}

/** Orders carry their remaining quantity and their authorizations: both change with every action. */
function useInvalidateLicensing() {
  const queryClient = useQueryClient();
  return () => invalidateTagged(queryClient, 'licensing');
}

export function useSendAuthorizations() {
  const invalidate = useInvalidateLicensing();
  return useMutation({ mutationFn: sendAuthorizations, onSuccess: invalidate });
}

export function useRevokeAuthorization() {
  const invalidate = useInvalidateLicensing();
  return useMutation({ mutationFn: revokeAuthorization, onSuccess: invalidate });
}

export function useDownloadAuthorization() {
  return useMutation({ mutationFn: downloadAuthorization });
}
