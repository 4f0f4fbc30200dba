import type { z } from 'zod';
import { ZErrorResponse, ZMultipleErrorResponse } from '@manifold/contract';

/** Response schemas of a console route: its success body plus the spec's error bodies. */
export function responses<T extends z.ZodType>(ok: T) {
  return {
    200: ok,
    400: ZErrorResponse,
    401: ZErrorResponse,
    403: ZErrorResponse,
    418: ZMultipleErrorResponse,
    420: ZErrorResponse,
  };
}
