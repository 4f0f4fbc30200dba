import { ZUserProfile, type TUserProfile } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { sessionQueryOptions } from '../../../lib/session';
import { invalidateTagged } from '../../../lib/query-tags';

export const ZUpdateProfileInput = z.object({
  username: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  company: z.string().nullable(),
  timeZone: z.string(),
  language: z.string(),
  /** Sent when the e-mail address changes: the server asks for it then (docs/api.md, Users). */
  currentPassword: z.string().optional(),
});
export type UpdateProfileInput = z.infer<typeof ZUpdateProfileInput>;

export function updateProfile(input: UpdateProfileInput): Promise<TUserProfile> {
  return apiRequest('POST /ui/user/edit', ZUserProfile, { body: ZUpdateProfileInput.parse(input) });
}

/** Saves the signed-in user's own details and refreshes the session's copy of them. */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (userProfile) => {
      const key = sessionQueryOptions().queryKey;
      const previous = queryClient.getQueryData(key);
      queryClient.setQueryData(key, { userProfile, escalated: previous?.escalated ?? false });
      return invalidateTagged(queryClient, 'users');
    },
  });
}
