import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { finished, type Readable, Transform, type TransformCallback } from 'node:stream';
import { StorageLimitError } from '../storage/storage.js';
import type { z } from 'zod';
import { assertCarryableText } from '../plugins/input-hygiene.js';
import { FIELD_MAX_BYTES } from '../plugins/multipart.js';
import { AppError } from './app-error.js';
import { identifierErrors } from './identifier-errors.js';

type BusboyFileStream = MultipartFile['file'];

type Part = Awaited<ReturnType<FastifyRequest['parts']> extends AsyncIterableIterator<infer P> ? P : never>;

type PartsOptions = NonNullable<Parameters<FastifyRequest['parts']>[0]>;

/** Bytes of each multipart request's body read so far, by request (`uploadBytesReceived`). */
const bodyBytes = new WeakMap<FastifyRequest['raw'], { bytes: number }>();

/**
 * How many bytes of this request's multipart body were read, however they were sent (with a
 * Content-Length or chunked); undefined for a request whose form was not read (`formParts`).
 */
export function uploadBytesReceived(request: FastifyRequest): number | undefined {
  return bodyBytes.get(request.raw)?.bytes;
}

/** Counts the body's bytes as the form parser reads them: one addition per chunk the socket delivers. */
function countBodyBytes(raw: FastifyRequest['raw']): void {
  const received = { bytes: 0 };
  bodyBytes.set(raw, received);
  raw.on('data', (chunk: Buffer) => {
    received.bytes += chunk.length;
  });
}

/**
 * The parts of a multipart request, with the route's own limits if it has tighter ones. Failures
 * of the form itself (cut off, malformed, over a limit) become 400 `malformedRequest` or 413
 * `payloadTooLarge` (a text field over its size limit names the field: the parser would cut it);
 * errors of the code consuming the parts pass through untouched. A client that goes away
 * mid-upload fails the file stream being read ("Premature close"), also when it left before the
 * form was read (see the tests).
 */
export async function* formParts(request: FastifyRequest, limits?: PartsOptions['limits']): AsyncGenerator<Part> {
  assertMultipart(request);
  const iterator = request.parts(limits ? { limits } : undefined)[Symbol.asyncIterator]();
  let started = false;
  for (;;) {
    let result: IteratorResult<Part>;
    try {
      const next = iterator.next();
      // the first next() has piped the body into the parser: counting from now on sees every
      // chunk and takes none away from it (a listener added earlier would start the flow alone)
      if (!started) {
        started = true;
        countBodyBytes(request.raw);
      }
      result = await next;
    } catch (error) {
      throw multipartFailure(error);
    }
    if (result.done) return;
    const part = result.value;
    if (part.type === 'field') {
      // the parser cuts a field at its size limit and goes on: a cut value is never taken
      if (part.valueTruncated) throw tooLarge(limits?.fieldSize ?? FIELD_MAX_BYTES, part.fieldname, 'field');
      assertCarryableText(part.value, part.fieldname);
    }
    // the form broke off (cut short, or the client left) before this file was read: the parser
    // destroyed its stream already, which would then never end nor fail for the reader
    if (part.type === 'file' && part.file.destroyed && !part.file.readableEnded) {
      throw multipartFailure(new Error('the form ends before it is complete'));
    }
    yield part;
  }
}

function multipartFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (
    code === 'FST_REQ_FILE_TOO_LARGE' ||
    code === 'FST_FILES_LIMIT' ||
    code === 'FST_PARTS_LIMIT' ||
    code === 'FST_FIELDS_LIMIT'
  ) {
    return new AppError('payloadTooLarge', { description: `The upload exceeds a limit (${code})` });
  }
  const message = error instanceof Error ? error.message : 'unreadable form';
  return new AppError('malformedRequest', { description: `The multipart form cannot be read: ${message}` });
}

/** Refuses a request that is not multipart/form-data. */
export function assertMultipart(request: FastifyRequest): void {
  if (!request.isMultipart()) {
    throw new AppError('malformedRequest', { description: 'Send the upload as multipart/form-data' });
  }
}

/**
 * Busboy ends a file stream that hits the size limit as if it were complete (marking it
 * `truncated`); this pass-through turns that into an error before the end, so nothing truncated
 * is ever stored. Given `formEnd`, the stream also ends only once the rest of the form was read,
 * and fails with the form's error when that went wrong.
 */
export function failOnTruncation(file: BusboyFileStream, maxBytes: number, formEnd?: Promise<void>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      if (file.truncated) callback(new StorageLimitError(maxBytes));
      else if (!formEnd) callback(null);
      else
        formEnd.then(
          () => callback(null),
          (error: unknown) => callback(multipartFailure(error)),
        );
    },
  });
}

function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function tooLarge(maxBytes: number, field: string, part: 'file' | 'field' = 'file'): AppError {
  const what = part === 'file' ? 'The file' : `The field ${field}`;
  return new AppError('payloadTooLarge', { field, description: `${what} may have at most ${byteSize(maxBytes)}` });
}

/** Reads a small file part into memory, refusing more than `maxBytes` (413 `payloadTooLarge`). */
export async function readSmallFile(file: BusboyFileStream, maxBytes: number, field = 'file'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        file.resume();
        throw tooLarge(maxBytes, field);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    throw multipartFailure(error);
  }
  if (file.truncated) throw tooLarge(maxBytes, field);
  return Buffer.concat(chunks);
}

export interface SmallForm {
  /** Text fields by name (the last of a repeated one). */
  fields: Record<string, string>;
  /** The first `file` part, read into memory; undefined when the form has none. */
  file: Buffer | undefined;
}

/**
 * Reads a form of text fields and one small `file` part (at most `maxBytes`, else 413); other
 * file parts are drained unread. A refused form is answered by the caller; the connection is
 * closed after such an answer (plugins/request-limits.ts), so an unread rest never lingers.
 */
export async function readSmallForm(
  request: FastifyRequest,
  maxBytes: number,
  limits?: PartsOptions['limits'],
): Promise<SmallForm> {
  const form: SmallForm = { fields: {}, file: undefined };
  for await (const part of formParts(request, limits)) {
    if (part.type === 'field') form.fields[part.fieldname] = String(part.value);
    else if (part.fieldname === 'file' && !form.file) form.file = await readSmallFile(part.file, maxBytes);
    else part.file.resume();
  }
  return form;
}

/** The form's file, or `uploadFileMissing`. */
export function requiredFile(form: SmallForm): Buffer {
  if (!form.file) throw new AppError('uploadFileMissing', { field: 'file' });
  return form.file;
}

/** A multipart boolean field: `true` or `false`. */
export function booleanField(value: string | undefined, field: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new AppError('malformedRequest', { field, description: `${field} must be true or false` });
}

/**
 * A multipart identifier field, checked against its contract schema (e.g. `ZDsiId`): malformed
 * or missing, it answers the identifier's token naming the field (see `identifierErrors`).
 */
export function identifierField(value: string | undefined, field: string, schema: z.ZodType<string>): string {
  const parsed = schema.safeParse(value?.trim().toLowerCase());
  if (parsed.success) return parsed.data;
  throw identifierErrors(schema, [[]], field) ?? new AppError('malformedRequest', { field });
}

function ignore(): void {}

export interface StreamedFormFile {
  /** As the client named it: data, never a path. */
  fileName: string | undefined;
  contentType: string | undefined;
  /** The file's bytes; errors before its end when the form's size limit cut it short. */
  stream: Readable;
}

/**
 * A file part as its reader gets it: an error before the limit's end when the part was cut short
 * (`failOnTruncation`), and a part that fails or closes before its end (the form broke off, the
 * client left) fails the stream with 400 `malformedRequest`, so that whatever stores it answers the
 * client's fault rather than a failure of its own (`storageTypeWriteError`, `uploadError`). A
 * reader that gives up first (its provider failed) keeps its own error. The form may break off
 * before anyone reads the stream (the route still checks the fields before it streams the file):
 * the error then stays on the stream (`errored`), for the pipeline that reads it later to fail
 * with, instead of being thrown as an uncaught exception. With `formEnd` the stream ends only once
 * the rest of the form was read (`failOnTruncation`).
 */
export function formFileStream(file: BusboyFileStream, maxBytes: number, formEnd?: Promise<void>): Readable {
  const guarded = failOnTruncation(file, maxBytes, formEnd);
  guarded.on('error', ignore);
  finished(file, (error) => {
    if (error && !guarded.destroyed) guarded.destroy(multipartFailure(error));
  });
  file.pipe(guarded);
  return guarded;
}

/**
 * Streams the form's `file` part to `store`, with the text fields sent before it (fields after the
 * file are not seen: routes name the ones they need first); file parts of other names before it are
 * drained unread; a form without a file answers `uploadFileMissing`. The rest of the form is read
 * while the file is stored, and the file's stream ends only once the form did: a form that goes
 * wrong after the file (a second file or too many fields: 413; a field holding NUL, the form cut
 * off: 400) fails the stream, so `store`, which reads the stream to its end before it commits
 * anything, keeps nothing of a refused upload.
 */
export async function streamFormFile<T>(
  request: FastifyRequest,
  maxBytes: number,
  store: (fields: Readonly<Record<string, string>>, file: StreamedFormFile) => Promise<T>,
): Promise<T> {
  const fields: Record<string, string> = {};
  const parts = formParts(request)[Symbol.asyncIterator]();
  for (let result = await parts.next(); !result.done; result = await parts.next()) {
    const part = result.value;
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname !== 'file') {
      part.file.resume();
      continue;
    }
    const rest = readRest(parts);
    // settled by the stream's end (or not awaited at all when `store` fails first)
    rest.catch(ignore);
    try {
      const stream = formFileStream(part.file, maxBytes, rest);
      const value = await store({ ...fields }, { fileName: part.filename, contentType: part.mimetype, stream });
      await rest;
      return value;
    } catch (error) {
      part.file.resume();
      throw error;
    }
  }
  throw new AppError('uploadFileMissing', { field: 'file' });
}

/** Reads the parts left to the form's end, draining file parts unread; fails as the form does. */
async function readRest(parts: AsyncIterator<Part>): Promise<void> {
  for (let result = await parts.next(); !result.done; result = await parts.next()) {
    if (result.value.type === 'file') result.value.file.resume();
  }
}
