import {
  ZAccessControl,
  ZAccessRole,
  ZEmpty,
  ZPage,
  type TAccessControlAddRequest,
  type TAccessRoleAddRequest,
} from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

const policiesKey = ['access-controls'] as const;
const rolesKey = ['access-roles'] as const;

export function useAccessPolicies(pageNum: number, numberOfItems: number) {
  return useQuery(
    pagedListQueryOptions([...policiesKey, pageNum, numberOfItems], (signal) =>
      apiRequest('GET /ui/access-control/list', ZPage(ZAccessControl), { query: { pageNum, numberOfItems }, signal }),
    ),
  );
}

export function useAddAccessPolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TAccessControlAddRequest) => apiRequest('POST /ui/access-control/add', ZAccessControl, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: policiesKey }),
  });
}

export function useDeleteAccessPolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accessControlId: string) => apiRequest('POST /ui/access-control/delete', ZEmpty, { body: { accessControlId } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: policiesKey }),
  });
}

export function useAccessRoles(pageNum: number, numberOfItems: number) {
  return useQuery(
    pagedListQueryOptions([...rolesKey, pageNum, numberOfItems], (signal) =>
      apiRequest('GET /ui/access-role/list', ZPage(ZAccessRole), { query: { pageNum, numberOfItems }, signal }),
    ),
  );
}

export function useAddAccessRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TAccessRoleAddRequest) => apiRequest('POST /ui/access-role/add', ZAccessRole, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: rolesKey }),
  });
}

export function useDeleteAccessRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accessRoleId: string) => apiRequest('POST /ui/access-role/delete', ZEmpty, { body: { accessRoleId } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: rolesKey }),
  });
}
