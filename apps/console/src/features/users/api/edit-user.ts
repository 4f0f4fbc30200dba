import { ZUserProfile, type TUserProfile } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { sessionQueryOptions } from '../../../lib/session';
import { invalidateTagged } from '../../../lib/query-tags';

export const ZEditUserInput = z.object({
  username: z.string(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  company: z.string().nullable().optional(),
  role: z.string().optional(),
  timeZone: z.string().optional(),
  language: z.string().optional(),
  useSso: z.boolean().optional(),
  password: z.string().optional(),
  currentPassword: z.string().optional(),
});
export type EditUserInput = z.infer<typeof ZEditUserInput>;

export function editUser(input: EditUserInput): Promise<TUserProfile> {
  return apiRequest('POST /ui/user/edit', ZUserProfile, { body: ZEditUserInput.parse(input) });
}

export function useEditUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: editUser,
    onSuccess: async (profile) => {
      const key = sessionQueryOptions().queryKey;
      const session = queryClient.getQueryData(key);
      if (session?.userProfile.username === profile.username) {
        queryClient.setQueryData(key, { ...session, userProfile: profile });
      }
      await invalidateTagged(queryClient, 'users');
    },
  });
}
