import { randomBytes } from 'node:crypto';

export interface FormFile {
  filename: string;
  content: string | Buffer;
  contentType?: string;
}

/** A multipart/form-data body for `app.inject`: text fields and files, in the order given. */
export function multipartForm(fields: Record<string, string | FormFile>): { body: Buffer; headers: Record<string, string> } {
  return multipartEntries(Object.entries(fields));
}

/** The same from a list of entries, where a name may repeat (several files of one field). */
export function multipartEntries(entries: [string, string | FormFile][]): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----manifold${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of entries) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\n` +
            `Content-Type: ${value.contentType ?? 'application/x-pem-file'}\r\n\r\n`,
        ),
        Buffer.isBuffer(value.content) ? value.content : Buffer.from(value.content),
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
