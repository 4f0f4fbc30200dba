import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { multipartBody } from './multipart-body.js';

describe('multipartBody', () => {
  it('streams fields and files in order, each file opened only when its turn comes', async () => {
    const opened: string[] = [];
    const file = (name: string, bytes: Buffer) => ({
      name: 'file',
      filename: name,
      contentType: 'application/octet-stream',
      open: async () => {
        opened.push(name);
        return Readable.from([bytes.subarray(0, 3), bytes.subarray(3)]);
      },
    });
    const first = Buffer.from('first file bytes');
    const second = Buffer.from([0, 1, 2, 255, 254, 13, 10, 45, 45]);
    const form = multipartBody([{ name: 'message', value: '{"a":1}' }, file('a.bin', first), file('b"\r\n.bin', second)]);
    expect(opened).toEqual([]);
    const boundary = /boundary=(.+)$/.exec(form.contentType)![1]!;
    const body = await buffer(form.stream);
    expect(opened).toEqual(['a.bin', 'b"\r\n.bin']);
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="message"\r\n\r\n{"a":1}\r\n`),
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
      ),
      first,
      Buffer.from(
        `\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="b___.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
      ),
      second,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(body.equals(expected)).toBe(true);
  });
});
