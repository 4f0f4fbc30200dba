import type { FastifyRequest } from 'fastify';
import type { IncomingFile, IncomingFiles } from '../modules/outbox/peer-messages.service.js';
import { formFileStream, formParts } from './multipart-parts.js';

/** A route's own multipart limits (the app's defaults allow one file and 64 KiB fields). */
export type FormLimits = Parameters<typeof formParts>[1];

/**
 * A multipart form whose text fields come first: `fields` are those before the first file part;
 * `next()` hands the `file` parts one at a time (each to be read to its end before the next;
 * other file parts are drained), and `drain()` reads what is left so the answer can be sent.
 */
export async function openForm(
  request: FastifyRequest,
  maxBytes: number,
  limits?: FormLimits,
): Promise<IncomingFiles & { fields: Record<string, string>; drain(): Promise<void> }> {
  const parts = formParts(request, limits)[Symbol.asyncIterator]();
  const fields: Record<string, string> = {};
  let pending: Awaited<ReturnType<typeof parts.next>>['value'] | undefined;
  let current: { incoming: IncomingFile; file: NodeJS.ReadableStream } | undefined;
  for (;;) {
    const result = await parts.next();
    if (result.done) break;
    if (result.value.type === 'field') {
      fields[result.value.fieldname] = String(result.value.value);
      continue;
    }
    pending = result.value;
    break;
  }
  const next = async (): Promise<IncomingFile | undefined> => {
    // whatever of the previous file was not read (its reader failed, or nobody read it)
    current?.incoming.stream.resume();
    current?.file.resume();
    current = undefined;
    for (;;) {
      let part = pending;
      pending = undefined;
      if (!part) {
        const result = await parts.next();
        if (result.done) return undefined;
        part = result.value;
      }
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      const file = part.file;
      const incoming = { fileName: part.filename, stream: formFileStream(file, maxBytes) };
      current = { incoming, file };
      return incoming;
    }
  };
  return {
    fields,
    next,
    async drain() {
      while (await next()) {
        // each file part is resumed by the following next()
      }
    },
  };
}

/** Reads the form, runs `work`, and reads what is left of the form whatever happened. */
export async function withForm<T>(
  request: FastifyRequest,
  maxBytes: number,
  work: (form: Awaited<ReturnType<typeof openForm>>) => Promise<T>,
  limits?: FormLimits,
): Promise<T> {
  const form = await openForm(request, maxBytes, limits);
  try {
    return await work(form);
  } finally {
    await form.drain().catch(() => undefined);
  }
}
