import type { RouteKey } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiDownload } from './api-client';

/**
 * An image the API serves only with a session token (`…/image/:image`), as an object URL for
 * an <img>; undefined while it loads, when there is none, or when it cannot be fetched.
 */
export function useAuthorizedImage(route: RouteKey, image: string | null | undefined): string | undefined {
  const query = useQuery({
    queryKey: ['image', route, image],
    queryFn: async ({ signal }) => (await apiDownload(route, { params: { image: image ?? '' }, signal })).blob,
    enabled: Boolean(image),
    staleTime: Infinity,
  });
  const [url, setUrl] = useState<string>();
  const blob = query.data;
  useEffect(() => {
    if (!blob) {
      setUrl(undefined);
      return;
    }
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [blob]);
  return image ? url : undefined;
}
