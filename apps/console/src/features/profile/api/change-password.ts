import { ZUserProfile, type TUserProfile } from '@manifold/contract';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZChangePasswordInput = z.object({
  username: z.string(),
  currentPassword: z.string(),
  password: z.string(),
});
export type ChangePasswordInput = z.infer<typeof ZChangePasswordInput>;

/** A user changing their own password proves the current one (server rule). */
export function changePassword(input: ChangePasswordInput): Promise<TUserProfile> {
  return apiRequest('POST /ui/user/edit', ZUserProfile, { body: ZChangePasswordInput.parse(input) });
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}
