import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TDeviceTemplate, TPackageFile } from '@manifold/contract';
import { policyFor, suiteLicensingWorld } from './helpers/licensing-fixtures.js';
import { createPackage, importTemplate, templateDocument, uploadForm } from './helpers/packages-fixtures.js';
import { countRows, describeEachDatabase, expectToken } from './helpers/test-app.js';

/** The app's limit on one multipart text field (plugins/multipart.ts). */
const FIELD_LIMIT = 64 * 1024;
const BOM = '\uFEFF';

/** A form of text parts, each sent with the Content-Type given (no file name: text fields). */
function typedFields(fields: [name: string, contentType: string, value: string][]) {
  const boundary = `----manifold${randomBytes(8).toString('hex')}`;
  const body = [
    ...fields.map(
      ([name, type, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n`,
    ),
    `--${boundary}--\r\n`,
  ].join('');
  return { body: Buffer.from(body), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describeEachDatabase('input taken strictly', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  describe('multipart text fields over the size limit', () => {
    it('refuse the form with 413 naming the field, even a field the route does not read, and add nothing', async () => {
      const token = await ctx().adminToken();
      const before = await countRows(ctx(), 'orders');
      const file = { filename: 'policy.json', content: JSON.stringify(policyFor(world)), contentType: 'application/json' };
      // the parser cut the field to the limit and the route went on with the rest
      const over = await uploadForm(ctx(), '/ui/order/upload', token, { note: 'x'.repeat(FIELD_LIMIT + 1), file });
      const body = expectToken(over, 413, 'payloadTooLarge', 'note');
      expect(body.errorDescription).toContain('64 KiB');
      expect(await countRows(ctx(), 'orders')).toBe(before);
      // a field of exactly the limit is whole: the upload is taken
      const atLimit = await uploadForm(ctx(), '/ui/order/upload', token, { note: 'x'.repeat(FIELD_LIMIT), file });
      expect(atLimit.statusCode, atLimit.body).toBe(200);
      expect(await countRows(ctx(), 'orders')).toBe(before + 1);
    });

    it('answer an oversized inspection field 413 naming it, not "not JSON"', async () => {
      const inspection = JSON.stringify({ partId: world.deviceId, result: 'passed', note: 'x'.repeat(FIELD_LIMIT) });
      const response = await uploadForm(ctx(), '/ui/qms/inspection', await ctx().adminToken(), { inspection });
      expectToken(response, 413, 'payloadTooLarge', 'inspection');
    });
  });

  describe('multipart text fields sent as parts of type application/json', () => {
    const inspect = async (type: string, value: string) =>
      ctx().call('POST', '/ui/qms/inspection', {
        token: await ctx().adminToken(),
        ...typedFields([['inspection', type, value]]),
      });

    it('reach the route as the text sent: the inspection is read as it is from a text part', async () => {
      // the plugin parsed such a part into an object: the route read "[object Object]", "not JSON"
      const unknownPart = JSON.stringify({ partId: randomUUID(), result: 'passed', technician: 'Ada' });
      for (const type of ['text/plain', 'application/json', 'application/json; charset=utf-8']) {
        expectToken(await inspect(type, unknownPart), 420, 'partNotPresent', 'partId');
        // the text's own spacing and a byte order mark are the route's to read, as from a text part
        expectToken(
          await inspect(type, `${BOM}{ "result" : "failed", "technician": "Ada" }`),
          420,
          'inspectionReasonRequired',
          'reason',
        );
      }
    });

    it('that is not JSON is refused by the route naming the field, as from a text part', async () => {
      // the plugin answered 406 FST_INVALID_JSON_FIELD_ERROR, naming no field
      for (const type of ['text/plain', 'application/json']) {
        const refused = expectToken(await inspect(type, '{"result": '), 400, 'malformedRequest', 'inspection');
        expect(refused.errorDescription).toBe('inspection: not JSON');
      }
    });
  });

  describe('multipart text fields sent as parts of type application/octet-stream without a file name', () => {
    const octetForm = (parts: [name: string, value: string, fileName?: string][]) => {
      const boundary = `----manifold${randomBytes(8).toString('hex')}`;
      const body = [
        ...parts.map(
          ([name, value, fileName]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${fileName ? `; filename="${fileName}"` : ''}\r\n` +
            `Content-Type: application/octet-stream\r\n\r\n${value}\r\n`,
        ),
        `--${boundary}--\r\n`,
      ].join('');
      return { body: Buffer.from(body), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
    };
    const packageFileRows = (dsiId: string) =>
      ctx()
        .app.services.database.db.selectFrom('package_files')
        .select(['file_name', 'is_public'])
        .where('package_id', '=', dsiId)
        .execute();

    it('are the fields the package file upload declares: dsiId and isPublic are read, the file stored', async () => {
      const token = await ctx().adminToken();
      const { dsiId } = await createPackage(ctx());
      // the parser took such a part for a file: dsiId never reached the route (packageFileFieldsFirst)
      const response = await ctx().call('POST', '/ui/package/files/upload', {
        token,
        ...octetForm([
          ['dsiId', dsiId],
          ['isPublic', 'true'],
          ['file', 'solid body', 'part.stl'],
        ]),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<TPackageFile>()).toMatchObject({ dsiId, fileName: 'part.stl', isPublic: true, size: 10 });
      expect(await packageFileRows(dsiId)).toEqual([{ file_name: 'part.stl', is_public: 1 }]);
      // with a text field's size limit, naming it, and nothing stored
      const long = await ctx().call('POST', '/ui/package/files/upload', {
        token,
        ...octetForm([
          ['dsiId', 'x'.repeat(FIELD_LIMIT + 1)],
          ['isPublic', 'true'],
          ['file', 'solid body', 'other.stl'],
        ]),
      });
      expectToken(long, 413, 'payloadTooLarge', 'dsiId');
      expect(await packageFileRows(dsiId)).toHaveLength(1);
    });

    it('are the fields the inspection declares: the inspection is read as from a text part', async () => {
      const before = await countRows(ctx(), 'quality_inspections');
      const response = await ctx().call('POST', '/ui/qms/inspection', {
        token: await ctx().adminToken(),
        ...octetForm([['inspection', JSON.stringify({ partId: randomUUID(), result: 'passed', technician: 'Ada' })]]),
      });
      // the parser took the part for a file and the route drained it: no inspection field at all
      expectToken(response, 420, 'partNotPresent', 'partId');
      expect(await countRows(ctx(), 'quality_inspections')).toBe(before);
    });
  });

  describe('JSON files starting with a UTF-8 byte order mark', () => {
    it('are read without it: a policy list', async () => {
      const before = await countRows(ctx(), 'orders');
      const response = await uploadForm(ctx(), '/ui/order/upload', await ctx().adminToken(), {
        file: { filename: 'policy.json', content: BOM + JSON.stringify(policyFor(world)), contentType: 'application/json' },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(await countRows(ctx(), 'orders')).toBe(before + 1);
      // one mark only: a second one is text before the JSON
      expectToken(
        await uploadForm(ctx(), '/ui/order/upload', await ctx().adminToken(), {
          file: {
            filename: 'policy.json',
            content: BOM + BOM + JSON.stringify(policyFor(world)),
            contentType: 'application/json',
          },
        }),
        420,
        'authorizedPolicyListNotFormattedCorrectly',
        'file',
      );
      expect(await countRows(ctx(), 'orders')).toBe(before + 1);
    });

    it('are read without it: a device template', async () => {
      const response = await importTemplate(ctx(), BOM + JSON.stringify(templateDocument({ name: 'With a BOM' })));
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json<TDeviceTemplate>()).toMatchObject({ name: 'With a BOM', parameterCount: 5 });
    });
  });

  describe('paging numbers', () => {
    it('are plain decimal digits: anything else answers 400 naming the parameter', async () => {
      const token = await ctx().adminToken();
      for (const [parameter, value] of [
        ['pageNum', '0x10'],
        ['numberOfItems', '%2B5'],
        ['numberOfItems', '%205'],
        ['pageNum', '1e1'],
        ['numberOfItems', '5.0'],
      ] as const) {
        for (const list of ['/ui/user/list', '/ui/order/list', '/ui/event/list', '/ui/package/list', '/ui/device/list']) {
          const response = await ctx().call('GET', `${list}?${parameter}=${value}`, { token });
          const body = expectToken(response, 400, 'malformedRequest');
          expect(body.errorDescription, `${list}?${parameter}=${value}`).toContain(`querystring/${parameter}`);
          // `field` names a property of the body only
          expect(body, `${list}?${parameter}=${value}`).not.toHaveProperty('field');
        }
      }
    });

    it('keep taking what they took before', async () => {
      const token = await ctx().adminToken();
      const page = await ctx().call('GET', '/ui/user/list?pageNum=01&numberOfItems=5', { token });
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json()).toMatchObject({ pageNum: 1, numberOfItems: 5 });
      const defaults = await ctx().call('GET', '/ui/order/list', { token });
      expect(defaults.json()).toMatchObject({ pageNum: 1, numberOfItems: 10 });
    });
  });

  describe('JSON bodies their contract refuses', () => {
    const samlProvider = (name: string) => ({
      name,
      connection: 'saml',
      enabled: true,
      domain: 'https://idp.example.com/metadata',
      ssoUrl: 'https://idp.example.com/sso',
      idpCertificate: 'not checked: the contract refuses first',
      defaultRole: 'USER',
      allowCreate: false,
    });
    const saveProvider = async (body: unknown) =>
      ctx().call('POST', '/ui/admin/sso/provider', { token: await ctx().adminToken(), body });
    const providerNames = async () =>
      (await ctx().call('GET', '/ui/admin/sso', { token: await ctx().adminToken() }))
        .json<{ data: { name: string }[] }>()
        .data.map((provider) => provider.name);

    it('answer 400 naming the property at fault, and store nothing', async () => {
      const name = `Too long an address ${randomUUID()}`;
      const refused = expectToken(
        await saveProvider({ ...samlProvider(name), ssoUrl: `https://idp.example.com/${'x'.repeat(512)}` }),
        400,
        'malformedRequest',
        'ssoUrl',
      );
      expect(refused.errorDescription).toBe('body/ssoUrl: Too big: expected string to have <=512 characters');
      expect(await providerNames()).not.toContain(name);
    });

    it('name a nested property by its path, as business errors name nested fields', async () => {
      const response = await ctx().call('POST', '/ui/admin/storage/provider', {
        token: await ctx().adminToken(),
        body: { identifier: 'aws', credentials: { awsStorageRegion: 'eu-west-1', awsStorageEndpoint: 'x'.repeat(2049) } },
      });
      const refused = expectToken(response, 400, 'malformedRequest', 'credentials.awsStorageEndpoint');
      expect(refused.errorDescription).toContain('body/credentials/awsStorageEndpoint: ');
    });

    it('name the first property of several at fault and list them all', async () => {
      const refused = expectToken(
        await saveProvider({ ...samlProvider('x'.repeat(129)), enabled: 'yes' }),
        400,
        'malformedRequest',
        'name',
      );
      expect(refused.errorDescription).toBe(
        'body/name: Too big: expected string to have <=128 characters; body/enabled: Invalid input: expected boolean, received string',
      );
    });

    it('name no property when the body as a whole is refused', async () => {
      const token = await ctx().adminToken();
      const json = { 'content-type': 'application/json' };
      for (const [url, body] of [
        ['/ui/admin/sso/provider', JSON.stringify([samlProvider('In a list')])],
        ['/ui/admin/sso/provider', '"a text"'],
        ['/ui/admin/storage/provider', 'null'],
      ] as const) {
        const refused = expectToken(await ctx().call('POST', url, { token, body, headers: json }), 400, 'malformedRequest');
        expect(refused, `${url} ${body}`).not.toHaveProperty('field');
      }
    });
  });
});
