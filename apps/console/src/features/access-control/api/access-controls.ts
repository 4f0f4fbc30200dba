import {
  ZAccessControl,
  ZAccessRole,
  ZEmpty,
  ZEscalationPolicy,
  ZPage,
  type TAccessControlAddRequest,
  type TAccessControlEditRequest,
  type TAccessRoleAddRequest,
  type TAccessRoleEditRequest,
  type TEscalationPolicy,
} from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

const policiesKey = ['access-controls'] as const;
const rolesKey = ['access-roles'] as const;

/** A change to policies or roles: their list is read again afterwards. */
function useChange<I, R>(key: readonly string[], change: (input: I) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: change, onSuccess: () => queryClient.invalidateQueries({ queryKey: key }) });
}

export function useAccessPolicies(pageNum: number, numberOfItems: number) {
  return useQuery(
    pagedListQueryOptions([...policiesKey, pageNum, numberOfItems], (signal) =>
      apiRequest('GET /ui/access-control/list', ZPage(ZAccessControl), { query: { pageNum, numberOfItems }, signal }),
    ),
  );
}

export const useAddAccessPolicy = () =>
  useChange(policiesKey, (input: TAccessControlAddRequest) =>
    apiRequest('POST /ui/access-control/add', ZAccessControl, { body: input }),
  );

export const useEditAccessPolicy = () =>
  useChange(policiesKey, (input: TAccessControlEditRequest) =>
    apiRequest('POST /ui/access-control/edit', ZAccessControl, { body: input }),
  );

export const useDeleteAccessPolicy = () =>
  useChange(policiesKey, (accessControlId: string) =>
    apiRequest('POST /ui/access-control/delete', ZEmpty, { body: { accessControlId } }),
  );

export function useAccessRoles(pageNum: number, numberOfItems: number) {
  return useQuery(
    pagedListQueryOptions([...rolesKey, pageNum, numberOfItems], (signal) =>
      apiRequest('GET /ui/access-role/list', ZPage(ZAccessRole), { query: { pageNum, numberOfItems }, signal }),
    ),
  );
}

export const useAddAccessRole = () =>
  useChange(rolesKey, (input: TAccessRoleAddRequest) => apiRequest('POST /ui/access-role/add', ZAccessRole, { body: input }));

export const useEditAccessRole = () =>
  useChange(rolesKey, (input: TAccessRoleEditRequest) => apiRequest('POST /ui/access-role/edit', ZAccessRole, { body: input }));

export const useDeleteAccessRole = () =>
  useChange(rolesKey, (accessRoleId: string) => apiRequest('POST /ui/access-role/delete', ZEmpty, { body: { accessRoleId } }));

const escalationKey = ['admin-escalation'] as const;

/** Whether every administrator must confirm sensitive actions with a security key. */
export function useEscalationPolicy() {
  return useQuery({
    queryKey: escalationKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/escalation', ZEscalationPolicy, { signal }),
  });
}

export const useSetEscalationPolicy = () =>
  useChange(escalationKey, (input: TEscalationPolicy) =>
    apiRequest('POST /ui/admin/escalation', ZEscalationPolicy, { body: input }),
  );
