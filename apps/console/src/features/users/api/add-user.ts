import { ZUserProfile, type TUserProfile } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { invalidateTagged } from '../../../lib/query-tags';

export const ZAddUserInput = z.object({
  username: z.string(),
  password: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  company: z.string().nullable(),
  role: z.string(),
  timeZone: z.string(),
  language: z.string(),
  useSso: z.boolean(),
});
export type AddUserInput = z.infer<typeof ZAddUserInput>;

export function addUser(input: AddUserInput): Promise<TUserProfile> {
  return apiRequest('POST /ui/user/add', ZUserProfile, { body: ZAddUserInput.parse(input) });
}

export function useAddUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addUser,
    onSuccess: () => invalidateTagged(queryClient, 'users'),
  });
}
