import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Writable } from 'node:stream';
import { z } from 'zod';

/**
 * Multipart uploads, registered once for the whole app. Parts are streamed: a route reads its
 * fields and files with `request.parts()` / `request.file()` and may pass tighter limits (the
 * certificate upload allows 256 KiB); the default allows `UPLOAD_MAX_BYTES` per file (design
 * packages). A file over its limit ends the request with 413 `payloadTooLarge`. A part without a
 * filename is a file when it says `Content-Type: application/octet-stream`, unless the route's
 * declared form names it a text field (`readsDeclaredTextFields`).
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
  // The request's readers of the form, as the plugin decorates the requests with them.
  const decorateRequest = app.decorateRequest;
  app.decorateRequest = function (this: FastifyInstance, name: string | symbol, value: unknown, ...rest: unknown[]) {
    const reader = typeof value === 'function' && formReaders.has(name) ? readsDeclaredTextFields(value as FormReader) : value;
    return Reflect.apply(decorateRequest, this, [name, reader, ...rest]) as FastifyInstance;
  } as FastifyInstance['decorateRequest'];
  try {
    await registerPlugin(app, uploadMaxBytes);
  } finally {
    app.addHook = addHook;
    app.decorateRequest = decorateRequest;
  }
}

/** The plugin's request methods that read a form, each taking the parser's options first. */
const formReaders = new Set<string | symbol>(['parts', 'file', 'files']);

type FormReader = (this: FastifyRequest, options?: Record<string, unknown>, ...rest: unknown[]) => unknown;

/**
 * A form reader that takes a part without a filename for a text field when the route's declared
 * form (`config.multipartForm`) names it one, whatever the part's content type: the parser takes
 * any part that says `Content-Type: application/octet-stream` for a file, so a text field a client
 * sent that way never reached the route as the field (the route drained it as a file, or it hit
 * the form's file limit). Read as a field it has a text field's limits (`fieldSize`, the route's or
 * {@link FIELD_MAX_BYTES}; `fields`). A part with a filename stays a file, as does every part of a
 * route that declares no form.
 */
function readsDeclaredTextFields(read: FormReader): FormReader {
  return function (this: FastifyRequest, options?: Record<string, unknown>, ...rest: unknown[]) {
    const form = this.routeOptions.config.multipartForm;
    if (!form) return Reflect.apply(read, this, [options, ...rest]);
    const textNames = declaredTextFields(form);
    const isPartAFile = (name: string | undefined, contentType: string | undefined, fileName: string | undefined) =>
      fileName !== undefined || (contentType === 'application/octet-stream' && !(name !== undefined && textNames.has(name)));
    return Reflect.apply(read, this, [{ ...options, isPartAFile }, ...rest]);
  };
}

/** The text fields of each declared form, worked out once per form. */
const textFieldsOfForm = new WeakMap<z.ZodType, ReadonlySet<string>>();

/** The fields of a declared form that are not files (`format: 'binary'`, or a list of such). */
function declaredTextFields(form: z.ZodType): ReadonlySet<string> {
  let names = textFieldsOfForm.get(form);
  if (names) return names;
  type Property = { format?: string; items?: { format?: string } };
  const { properties = {} } = z.toJSONSchema(form, { io: 'input' }) as { properties?: Record<string, Property> };
  names = new Set(
    Object.entries(properties)
      .filter(([, property]) => property.format !== 'binary' && property.items?.format !== 'binary')
      .map(([name]) => name),
  );
  textFieldsOfForm.set(form, names);
  return names;
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
