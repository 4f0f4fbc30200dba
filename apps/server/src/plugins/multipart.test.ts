import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerMultipart } from './multipart.js';

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
});
