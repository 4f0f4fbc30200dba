import { ZLoginResponse, ZSsoLoginOptions, type TLoginResponse, type TSsoLoginOption } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiRequest, fillPath } from '../../../lib/api-client';
import { sessionQueryOptions } from '../../../lib/session';
import { setSessionToken } from '../../../lib/session-token';

/** Where the console was asked to go after a single sign-on (the provider's round trip loses it). */
const REDIRECT_KEY = 'manifold.sso.redirect';

/**
 * The enabled identity providers for the login page: one plain request when the page opens (no
 * query cache on the login page, whose script size is measured: e2e/measure-login.ts). A failure
 * leaves the password form alone.
 */
export function useSsoLoginOptions(): TSsoLoginOption[] {
  const [options, setOptions] = useState<TSsoLoginOption[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    // asked in a task of its own rather than in the commit that shows the form (a long task on a phone)
    const timer = setTimeout(() => {
      apiRequest('GET /ui/user/sso/providers', ZSsoLoginOptions, { signal: controller.signal, redirectOnUnauthorized: false })
        .then((answer) => setOptions(answer.data))
        .catch(() => setOptions([]));
    }, 0);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, []);
  return options;
}

/** The server address that starts a login at a provider (the browser goes there). */
export function ssoStartUrl(option: TSsoLoginOption, redirect: string | null): string {
  if (option.connection === 'saml') {
    const path = fillPath('/ui/user/saml2/authenticate/:id', { id: option.id });
    return redirect ? `${path}?${new URLSearchParams({ RelayState: redirect })}` : path;
  }
  return fillPath('/ui/user/oidc/authenticate/:id', { id: option.id });
}

export function rememberSsoRedirect(redirect: string | null): void {
  if (redirect) sessionStorage.setItem(REDIRECT_KEY, redirect);
  else sessionStorage.removeItem(REDIRECT_KEY);
}

export function takeSsoRedirect(): string | null {
  const redirect = sessionStorage.getItem(REDIRECT_KEY);
  sessionStorage.removeItem(REDIRECT_KEY);
  return redirect;
}

export type SsoFinish =
  { kind: 'oidc'; code: string; state: string; redirectUri: string } | { kind: 'saml'; id: string; samlResponse: string };

function finishSso(input: SsoFinish): Promise<TLoginResponse> {
  if (input.kind === 'oidc') {
    const { code, state, redirectUri } = input;
    return apiRequest('POST /ui/sessions', ZLoginResponse, { body: { code, state, redirectUri }, redirectOnUnauthorized: false });
  }
  return apiRequest('POST /ui/user/login/saml2/sso/:id', ZLoginResponse, {
    params: { id: input.id },
    body: { samlResponse: input.samlResponse },
    redirectOnUnauthorized: false,
  });
}

/** Finishes a single sign-on and starts the session like a password login. */
export function useFinishSso() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: finishSso,
    onSuccess: (response) => {
      setSessionToken(response.sessionToken);
      queryClient.clear();
      queryClient.setQueryData(sessionQueryOptions().queryKey, { userProfile: response.userProfile, escalated: false });
    },
  });
}
