import {
  ZEmpty,
  ZManageInstance,
  ZPage,
  ZProtectInstance,
  ZProtectTokens,
  ZTraceInstance,
  type TManageType,
  type TPageQuery,
} from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

/** The three kinds of peer registration the Network screens list. */
export type PeerKind = 'manage' | 'trace' | 'protect';
export type ManageFilter = TManageType | 'all';

const ZManagePage = ZPage(ZManageInstance);
const ZTracePage = ZPage(ZTraceInstance);
const ZProtectPage = ZPage(ZProtectInstance);

/** `GET /ui/manage/list`: Manage instances upstream, downstream or both, newest first. */
export function manageInstancesQueryOptions(input: TPageQuery & { registrationType: ManageFilter }) {
  return pagedListQueryOptions(['registrations', 'manage', input], (signal) =>
    apiRequest('GET /ui/manage/list', ZManagePage, { query: { ...input }, signal }),
  );
}

export function useManageInstances(input: TPageQuery & { registrationType: ManageFilter }) {
  return useQuery(manageInstancesQueryOptions(input));
}

export function useTraceInstances(input: TPageQuery) {
  return useQuery(
    pagedListQueryOptions(['registrations', 'trace', input], (signal) =>
      apiRequest('GET /ui/trace/list', ZTracePage, { query: { ...input }, signal }),
    ),
  );
}

export function useProtectInstances(input: TPageQuery) {
  return useQuery(
    pagedListQueryOptions(['registrations', 'protect', input], (signal) =>
      apiRequest('GET /ui/protect/list', ZProtectPage, { query: { ...input }, signal }),
    ),
  );
}

function useRegistrationMutation<TInput, TOutput>(mutationFn: (input: TInput) => Promise<TOutput>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['registrations'] });
      // the authorize form's Manage picker lists the approved downstream registrations
      await queryClient.invalidateQueries({ queryKey: ['pickers', 'manage'] });
    },
  });
}

/** `manage/add`: exchanges certificates with the peer and registers; Pending until the peer approves. */
export function useAddManageInstance() {
  return useRegistrationMutation((input: { registrationType: TManageType; manageUrl: string }) =>
    apiRequest('POST /ui/manage/add', ZManageInstance, { body: input }),
  );
}

/** `trace/add`: registers with a Trace instance this one will report to. */
export function useAddTraceInstance() {
  return useRegistrationMutation((input: { traceUrl: string }) =>
    apiRequest('POST /ui/trace/add', ZTraceInstance, { body: input }),
  );
}

/** `protect/tokens`: a new token pair; its answer is the only time token2 is shown. */
export function useProtectTokens() {
  return useRegistrationMutation(() => apiRequest('POST /ui/protect/tokens', ZProtectTokens));
}

const approveCalls = {
  manage: { route: 'POST /ui/manage/approve', schema: ZManageInstance },
  trace: { route: 'POST /ui/trace/approve', schema: ZTraceInstance },
  protect: { route: 'POST /ui/protect/approve', schema: ZProtectInstance },
} as const;
const deleteRoutes = {
  manage: 'POST /ui/manage/delete',
  trace: 'POST /ui/trace/delete',
  protect: 'POST /ui/protect/delete',
} as const;

/** `<kind>/approve {id, approve}`: approves (true) or rejects (false); the peer is told first. */
export function useApproveRegistration(kind: PeerKind) {
  const { route, schema } = approveCalls[kind];
  return useRegistrationMutation((input: { id: string; approve: boolean }) =>
    apiRequest<unknown>(route, schema, { body: input }),
  );
}

/** `<kind>/delete {id}`: the peer is told and holds it Cancelled. */
export function useDeleteRegistration(kind: PeerKind) {
  return useRegistrationMutation((input: { id: string }) => apiRequest(deleteRoutes[kind], ZEmpty, { body: input }));
}
