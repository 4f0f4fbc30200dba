import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * Multipart uploads, registered once for the whole app. Parts are streamed: a route reads its
 * fields and files with `request.parts()` / `request.file()` and may pass tighter limits (the
 * certificate upload allows 256 KiB); the default allows `UPLOAD_MAX_BYTES` per file (design
 * packages). A file over its limit ends the request with 413 `payloadTooLarge`.
 */
export async function registerMultipart(app: FastifyInstance, uploadMaxBytes: number): Promise<void> {
  // The plugin adds an `onResponse` hook to every request of the server to delete the files
  // `saveRequestFiles()` wrote to disk; this server streams every part and never calls it (lint
  // forbids it), and an `onResponse` hook costs every request, uploads or not, about 3 µs (a
  // promise and Fastify's hook run after each reply). So that one hook is left out.
  const addHook = app.addHook;
  app.addHook = function (this: FastifyInstance, name: string, hook: unknown) {
    if (name === 'onResponse') return this;
    return Reflect.apply(addHook, this, [name, hook]) as FastifyInstance;
  } as FastifyInstance['addHook'];
  try {
    await registerPlugin(app, uploadMaxBytes);
  } finally {
    app.addHook = addHook;
  }
}

/**
 * The most bytes one text field of a form may hold, unless the route sets its own `fieldSize`: a
 * longer field is refused (413 naming it, `formParts`), never cut.
 */
export const FIELD_MAX_BYTES = 64 * 1024;

async function registerPlugin(app: FastifyInstance, uploadMaxBytes: number): Promise<void> {
  await app.register(fastifyMultipart, {
    throwFileSizeLimit: true,
    limits: {
      fileSize: uploadMaxBytes,
      files: 1,
      fields: 20,
      fieldSize: FIELD_MAX_BYTES,
      parts: 40,
      headerPairs: 100,
    },
  });
}
