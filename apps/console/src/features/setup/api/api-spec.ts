import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

/** The OpenAPI 3.1 document; only what the reference needs to know it is one is checked here. */
const ZOpenApiDocument = z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) });

export function useApiSpec() {
  return useQuery(
    queryOptions({
      queryKey: ['admin', 'api-spec'],
      queryFn: ({ signal }) => apiRequest('GET /ui/admin/api-spec', ZOpenApiDocument, { signal }),
      staleTime: 5 * 60_000,
    }),
  );
}
