import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Writable } from 'node:stream';

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

/**
 * The form parser's stream option `construct`, run once per form before any of its bytes is parsed:
 * every text field is handed on as the text sent. The plugin parses a field whose part says
 * `Content-Type: application/json` into a value (and refuses one that is not JSON, naming no
 * field), so a route reading the field as text got `[object Object]`; the spec's form fields are
 * text, and a route that takes JSON in one parses it itself (`parseCarryableJson`, naming the
 * field). So such a field is reported to the plugin as `text/plain`; no route reads a field's type.
 */
function textFields(this: Writable, callback: (error?: Error | null) => void): void {
  const emit = this.emit;
  this.emit = function (this: Writable, event: string | symbol, ...args: unknown[]): boolean {
    // busboy's `field` event: (name, value, nameTruncated, valueTruncated, encoding, mimeType)
    if (event === 'field' && typeof args[5] === 'string' && args[5].startsWith('application/json')) args[5] = 'text/plain';
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  };
  callback();
}

async function registerPlugin(app: FastifyInstance, uploadMaxBytes: number): Promise<void> {
  await app.register(fastifyMultipart, {
    // handed to busboy, and by busboy to its Writable: see textFields
    ...({ construct: textFields } as object),
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
