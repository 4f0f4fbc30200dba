import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * Multipart uploads, registered once for the whole app. Parts are streamed: a route reads its
 * fields and files with `request.parts()` / `request.file()` and may pass tighter limits (the
 * certificate upload allows 256 KiB); the default allows `UPLOAD_MAX_BYTES` per file (design
 * packages). A file over its limit ends the request with 413 `payloadTooLarge`.
 */
export async function registerMultipart(app: FastifyInstance, uploadMaxBytes: number): Promise<void> {
  await app.register(fastifyMultipart, {
    throwFileSizeLimit: true,
    limits: {
      fileSize: uploadMaxBytes,
      files: 1,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: 40,
      headerPairs: 100,
    },
  });
}
