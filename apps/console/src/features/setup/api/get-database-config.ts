import { ZDatabaseConfig } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getDatabaseConfig(signal?: AbortSignal) {
  return apiRequest('GET /ui/admin/database', ZDatabaseConfig, { signal });
}

export function databaseConfigQueryOptions() {
  return queryOptions({ queryKey: ['admin', 'database'], queryFn: ({ signal }) => getDatabaseConfig(signal) });
}

export function useDatabaseConfig() {
  return useQuery(databaseConfigQueryOptions());
}
