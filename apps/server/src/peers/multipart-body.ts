import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A text field of a form. */
export interface FormField {
  name: string;
  value: string;
}

/** A file part, opened only when the form is streamed to its part. */
export interface FormFile {
  name: string;
  filename: string;
  contentType: string;
  open(): Promise<Readable>;
}

const quoted = (text: string) => text.replace(/["\r\n\\]/g, '_');

/**
 * A `multipart/form-data` body streamed part by part (RFC 7578): fields as they are, each file
 * read from its stream when its turn comes, so a form of large files is never held in memory.
 */
export function multipartBody(parts: (FormField | FormFile)[]): { stream: Readable; contentType: string } {
  const boundary = `----manifold${randomBytes(16).toString('hex')}`;
  async function* generate(): AsyncGenerator<Buffer> {
    for (const part of parts) {
      if ('value' in part) {
        yield Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="${quoted(part.name)}"\r\n\r\n${part.value}\r\n`,
          'utf8',
        );
        continue;
      }
      yield Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${quoted(part.name)}"; filename="${quoted(part.filename)}"\r\n` +
          `content-type: ${quoted(part.contentType)}\r\n\r\n`,
        'utf8',
      );
      for await (const chunk of await part.open()) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return { stream: Readable.from(generate(), { objectMode: false }), contentType: `multipart/form-data; boundary=${boundary}` };
}
