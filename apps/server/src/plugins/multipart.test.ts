import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FIELD_MAX_BYTES, registerMultipart } from './multipart.js';

describe('registerMultipart', () => {
  it('adds no onResponse hook of its own (uploads are streamed, nothing is saved to delete) and still reads parts', async () => {
    const app = Fastify({ logger: false });
    try {
      await registerMultipart(app, 1024);
      // hooks added afterwards are added as ever, onResponse ones too
      let responses = 0;
      app.addHook('onResponse', (_request, _reply, done) => {
        responses += 1;
        done();
      });
      app.post('/upload', async (request) => {
        const names: string[] = [];
        for await (const part of request.parts()) {
          names.push(
            part.type === 'file'
              ? `${part.filename}:${(await part.toBuffer()).length}`
              : `${part.fieldname}=${String(part.value)}`,
          );
        }
        return { names };
      });
      await app.ready();
      const hooks = Object.getOwnPropertySymbols(app).find((symbol) => symbol.description === 'fastify.hooks');
      expect((app as unknown as Record<symbol, { onResponse: unknown[] }>)[hooks!]!.onResponse).toHaveLength(1);
      const boundary = 'b0undary';
      const body = [
        `--${boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\npackage\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n12345\r\n`,
        `--${boundary}--\r\n`,
      ].join('');
      const answer = await app.inject({
        method: 'POST',
        url: '/upload',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: body,
      });
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ names: ['kind=package', 'a.bin:5'] });
      expect(responses).toBe(1);
    } finally {
      await app.close();
    }
  });
  it('hands every text field on as the text sent, whatever the content type of its part', async () => {
    const app = Fastify({ logger: false });
    try {
      await registerMultipart(app, 1024);
      app.post('/form', async (request) => {
        const fields: [string, unknown][] = [];
        for await (const part of request.parts()) {
          if (part.type === 'field') fields.push([part.fieldname, part.value]);
          else part.file.resume();
        }
        return { fields };
      });
      const boundary = 'b0undary';
      const field = (name: string, type: string, value: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n`;
      const answer = await app.inject({
        method: 'POST',
        url: '/form',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: [
          field('object', 'application/json', '{ "a" : 1 }'),
          field('withCharset', 'application/json; charset=utf-8', '[1, 2]'),
          field('notJson', 'application/json', '{'),
          field('plain', 'text/plain', 'as sent'),
          `--${boundary}--\r\n`,
        ].join(''),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({
        fields: [
          ['object', '{ "a" : 1 }'],
          ['withCharset', '[1, 2]'],
          ['notJson', '{'],
          ['plain', 'as sent'],
        ],
      });
    } finally {
      await app.close();
    }
  });

  it('reads a part without a filename as text when the route declares it a text field, whatever its content type', async () => {
    const app = Fastify({ logger: false });
    try {
      await registerMultipart(app, 1024);
      const form = z.object({
        note: z.string(),
        kind: z.string().optional(),
        file: z.string().meta({ format: 'binary' }),
      });
      const read = async (parts: ReturnType<FastifyRequest['parts']>) => {
        const seen: unknown[] = [];
        for await (const part of parts) {
          if (part.type === 'field') seen.push([part.type, part.fieldname, part.value, part.valueTruncated]);
          else seen.push([part.type, part.fieldname, (await part.toBuffer()).toString(), part.filename ?? null]);
        }
        return { seen };
      };
      app.post('/declared', { config: { multipartForm: form } }, (request) => read(request.parts({ limits: { files: 4 } })));
      app.post('/declared-limited', { config: { multipartForm: form } }, (request) =>
        read(request.parts({ limits: { fieldSize: 8 } })),
      );
      app.post('/undeclared', (request) => read(request.parts()));
      const boundary = 'b0undary';
      const part = (name: string, value: string, headers: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${headers}\r\n\r\n${value}\r\n`;
      const octet = '\r\nContent-Type: application/octet-stream';
      const send = (url: string, ...parts: string[]) =>
        app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: [...parts, `--${boundary}--\r\n`].join(''),
        });
      const body = [
        part('note', 'as sent', octet),
        part('kind', 'package', '; filename="kind.txt"' + octet),
        part('file', 'bytes', octet),
        part('other', 'extra', octet),
      ];
      const declared = await send('/declared', ...body);
      expect(declared.statusCode, declared.body).toBe(200);
      expect(declared.json()).toEqual({
        seen: [
          ['field', 'note', 'as sent', false],
          // a part with a filename stays a file, and so do undeclared names and the declared file
          ['file', 'kind', 'package', 'kind.txt'],
          ['file', 'file', 'bytes', null],
          ['file', 'other', 'extra', null],
        ],
      });
      // a route that declares no form reads such parts as files, as the parser does
      const undeclared = await send('/undeclared', part('note', 'as sent', octet));
      expect(undeclared.json()).toEqual({ seen: [['file', 'note', 'as sent', null]] });
      // the text field's size limit, the route's own or the default, holds it: the value is cut, and marked so
      const limited = await send('/declared-limited', part('note', 'nine byte', octet));
      expect(limited.json()).toEqual({ seen: [['field', 'note', 'nine byt', true]] });
      const long = await send('/declared', part('note', 'x'.repeat(FIELD_MAX_BYTES + 1), octet));
      expect(long.json<{ seen: unknown[][] }>().seen.map((entry) => [entry[0], (entry[2] as string).length, entry[3]])).toEqual([
        ['field', FIELD_MAX_BYTES, true],
      ]);
    } finally {
      await app.close();
    }
  });
});
