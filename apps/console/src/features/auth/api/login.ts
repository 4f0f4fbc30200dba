import { ZLoginResponse, type TLoginResponse } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { sessionQueryOptions } from '../../../lib/session';
import { setSessionToken } from '../../../lib/session-token';

export const ZLoginInput = z.object({ username: z.string(), password: z.string() });
export type LoginInput = z.infer<typeof ZLoginInput>;

export function login(input: LoginInput): Promise<TLoginResponse> {
  return apiRequest('POST /ui/user/login', ZLoginResponse, {
    body: ZLoginInput.parse(input),
    redirectOnUnauthorized: false,
  });
}

/** Logs in and starts a fresh session: new cookie, nothing cached from before. */
export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (response) => {
      setSessionToken(response.sessionToken);
      queryClient.clear();
      queryClient.setQueryData(sessionQueryOptions().queryKey, { userProfile: response.userProfile, escalated: false });
    },
  });
}
