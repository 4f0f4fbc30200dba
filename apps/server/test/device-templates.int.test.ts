import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  deviceTemplateJsonSchema,
  type TDeviceParameterInput,
  type TDeviceTemplate,
  type TDeviceTemplateDetail,
} from '@manifold/contract';
import { createPackage, importTemplate, templateDocument, uploadForm } from './helpers/packages-fixtures.js';
import { countRows, describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';

const base: TDeviceParameterInput = { parameterId: 'p', type: 'integer', low: 0, high: 10 };

/** A template with one parameter, for checking one rule. */
const withParameter = (parameter: Record<string, unknown>) =>
  templateDocument({ parameters: [{ ...base, ...parameter } as never] });

describeEachDatabase('device templates', (ctx) => {
  describe('GET /ui/package/device-template/schema', () => {
    it('publishes the JSON Schema of the template file, the same as docs/device-template.schema.json', async () => {
      const response = await ctx().call('GET', '/ui/package/device-template/schema', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      const schema = response.json<{ $defs: Record<string, { properties: Record<string, unknown> }>; $schema: string }>();
      expect(schema.$schema).toContain('2020-12');
      expect(Object.keys(schema.$defs.DeviceTemplateDocument!.properties)).toEqual([
        'name',
        'description',
        'target',
        'parameterVersion',
        'parameters',
      ]);
      const file = path.resolve(import.meta.dirname, '../../../docs/device-template.schema.json');
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(deviceTemplateJsonSchema());
    });
  });

  describe('POST /ui/package/device-template/import', () => {
    it('imports a template into the library or attaches it to a package', async () => {
      const namedPrinterX = async () =>
        (
          await ctx().call('GET', '/ui/package/device-template/list?name=printer%20x&numberOfItems=1', {
            token: await ctx().adminToken(),
          })
        ).json<{ totalNumOfItems: number }>().totalNumOfItems;
      const importedAudits = async () =>
        (
          await ctx()
            .app.services.database.db.selectFrom('audit_events')
            .select('id')
            .where('event_type', '=', 'deviceTemplateImported')
            .execute()
        ).length;
      const namedBefore = await namedPrinterX();
      const auditsBefore = await importedAudits();
      const library = await importTemplate(ctx(), templateDocument());
      expect(library.statusCode, library.body).toBe(200);
      expect(library.json<TDeviceTemplate>()).toMatchObject({
        name: 'Printer X settings',
        dsiId: null,
        parameterCount: 5,
        parameterVersion: '1.0',
        target: { manufacturer: 'Acme', model: 'X1' },
      });
      const pkg = await createPackage(ctx());
      const attached = (await importTemplate(ctx(), templateDocument({ name: 'Attached' }), pkg.dsiId)).json<TDeviceTemplate>();
      expect(attached.dsiId).toBe(pkg.dsiId);
      const detail = await ctx().call('GET', `/ui/package/device-template/fetch?deviceTemplateId=${attached.deviceTemplateId}`, {
        token: await ctx().adminToken(),
      });
      expect(detail.json<TDeviceTemplateDetail>().parameters[0]).toMatchObject({
        parameterId: 'bedTemperature',
        adjust: 'INCREASE',
        low: 50,
        high: 110,
      });
      const listed = await ctx().call('GET', `/ui/package/device-template/list?dsiId=${pkg.dsiId}`, {
        token: await ctx().adminToken(),
      });
      expect(listed.json<{ data: TDeviceTemplate[]; totalNumOfItems: number }>()).toMatchObject({
        totalNumOfItems: 1,
        data: [{ name: 'Attached' }],
      });
      // 'Printer X settings' matches, 'Attached' does not
      expect(await namedPrinterX()).toBe(namedBefore + 1);
      expectToken(
        await importTemplate(ctx(), templateDocument(), '00000000-0000-4000-8000-000000000000'),
        420,
        'packageNotPresent',
      );
      expect(await importedAudits()).toBe(auditsBefore + 2);
    });

    it('answers packageNotPresent, not a crash, to an import into a package being deleted', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      for (let round = 0; round < 6; round += 1) {
        const pkg = await createPackage(ctx());
        const [imported, deleted, importedToo] = await Promise.all([
          importTemplate(ctx(), templateDocument({ name: `Doomed ${round}` }), pkg.dsiId),
          ctx().call('POST', '/ui/package/delete', { token, body: { dsiId: pkg.dsiId } }),
          importTemplate(ctx(), templateDocument({ name: `Doomed too ${round}` }), pkg.dsiId),
        ]);
        // the delete always goes through; an import either went first (and went with the
        // package) or came after it and was refused
        expect(deleted.statusCode, deleted.body).toBe(200);
        for (const answer of [imported, importedToo]) {
          if (answer.statusCode !== 200) expectToken(answer, 420, 'packageNotPresent', 'dsiId');
        }
        const left = await db.selectFrom('device_templates').select('id').where('package_id', '=', pkg.dsiId).execute();
        expect(left).toEqual([]);
      }
    });

    it('refuses what is not JSON of the template shape, naming the field', async () => {
      expectToken(await importTemplate(ctx(), '{not json'), 420, 'deviceTemplateNotFormattedCorrectly');
      const missing = expectToken(await importTemplate(ctx(), { name: 'x' }), 420, 'deviceTemplateNotFormattedCorrectly');
      expect(missing.field).toBe('parameters');
      const several = expectTokens(await importTemplate(ctx(), withParameter({ type: 'float', adjust: 'SOMETIMES' })));
      expect(several.map((e) => e.field).sort()).toEqual(['parameters[0].adjust', 'parameters[0].type']);
      const extra = expectToken(
        await importTemplate(ctx(), withParameter({ colour: 'red' })),
        420,
        'deviceTemplateNotFormattedCorrectly',
      );
      expect(extra.field).toBe('parameters[0]');
      expectToken(
        await uploadForm(ctx(), '/ui/package/device-template/import', await ctx().adminToken(), { dsiId: '' }),
        420,
        'uploadFileMissing',
      );
    });

    it('holds the file to what a JSON body is held to: no NUL, no character XML cannot carry, and nothing stored', async () => {
      const before = await countRows(ctx(), 'device_templates');
      // escaped in the JSON text, so only the parsed document holds them (PostgreSQL refused the NUL with a 500)
      const withName = (name: string) => JSON.stringify(templateDocument({ name: 'NAME' })).replace('"NAME"', `"${name}"`);
      const nul = expectToken(await importTemplate(ctx(), withName('Printer\\u0000X')), 400, 'malformedRequest');
      expect(nul.errorDescription).toBe('file.name contains a NUL character');
      expectToken(await importTemplate(ctx(), withName('Printer\\u0001X')), 420, 'invalidCharacters', 'file.name');
      expectToken(
        await importTemplate(ctx(), JSON.stringify(templateDocument({ description: 'half \ud800 a pair' }))),
        420,
        'invalidCharacters',
        'file.description',
      );
      expect(await countRows(ctx(), 'device_templates')).toBe(before);
    });

    it('checks every rule between fields with a clear token and the path of the field', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ low: 10, high: 0 }, 'parameterRangeInvalid', 'parameters[0].low'],
        [{ type: 'string', low: 1, high: undefined }, 'parameterRangeNotAllowed', 'parameters[0].low'],
        [{ low: 0.5 }, 'invalidValueFormat', 'parameters[0].low'],
        [{ resetValue: 11 }, 'valueOutOfRange', 'parameters[0].resetValue'],
        [{ valueList: [1, 'two'] }, 'invalidValueFormat', 'parameters[0].valueList[1]'],
        [
          { type: 'choice', low: undefined, high: undefined, choicePresent: true, choiceList: ['a', 'b'], valueList: ['c'] },
          'valueNotFoundInChoiceList',
          'parameters[0].valueList[0]',
        ],
        [{ type: 'choice', low: undefined, high: undefined }, 'parameterChoiceListMissing', 'parameters[0].choiceList'],
        [
          { type: 'string', low: undefined, high: undefined, choiceList: ['a'] },
          'parameterChoiceListMismatch',
          'parameters[0].choicePresent',
        ],
        [
          {
            type: 'choice',
            low: undefined,
            high: undefined,
            choicePresent: true,
            choiceList: ['a', 'b'],
            choiceListEntryList: [{ value: 'a' }],
          },
          'parameterChoiceListMismatch',
          'parameters[0].choiceListEntryList',
        ],
        [{ exclusive: true, valueList: [1, 2] }, 'valueExclusiveAllowsOnlyOneValue', 'parameters[0].valueList'],
        [{ adjust: 'LOCK' }, 'parameterAdjustInvalid', 'parameters[0].adjust'],
        [
          { type: 'boolean', low: undefined, high: undefined, adjust: 'INCREASE', resetValue: true },
          'parameterAdjustInvalid',
          'parameters[0].adjust',
        ],
        [
          { type: 'boolean', low: undefined, high: undefined, resetValue: 'yes' },
          'invalidValueFormat',
          'parameters[0].resetValue',
        ],
        [
          { prompt: [{ language: 'en_US', text: 'x', data: 'aGVsbG8=', size: 4 }] },
          'parameterTextSizeMismatch',
          'parameters[0].prompt[0].size',
        ],
      ];
      for (const [parameter, token, field] of cases) {
        const response = await importTemplate(ctx(), withParameter(parameter));
        const error = expectToken(response, 420, token);
        expect(error.field, `${token}: ${response.body}`).toBe(field);
      }
      const duplicate = await importTemplate(
        ctx(),
        templateDocument({ parameters: [base as never, { ...base, low: 20 } as never] }),
      );
      const errors = expectTokens(duplicate);
      expect(errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ errorToken: 'parameterIdDuplicate', field: 'parameters[1].parameterId' }),
          expect.objectContaining({ errorToken: 'parameterRangeInvalid', field: 'parameters[1].low' }),
        ]),
      );
      const stored = await ctx()
        .app.services.database.db.selectFrom('device_templates')
        .select('id')
        .where('name', '=', 'Printer X settings')
        .where('parameter_count', '=', 1)
        .execute();
      expect(stored).toHaveLength(0);
    });
  });

  describe('POST /ui/package/device-template/delete', () => {
    it('deletes an unused template and refuses one a step applies', async () => {
      const token = await ctx().adminToken();
      const pkg = await createPackage(ctx());
      const used = (await importTemplate(ctx(), templateDocument(), pkg.dsiId)).json<TDeviceTemplate>();
      const unused = (await importTemplate(ctx(), templateDocument())).json<TDeviceTemplate>();
      const deleteTemplate = (deviceTemplateId: string) =>
        ctx().call('POST', '/ui/package/device-template/delete', { token, body: { deviceTemplateId } });
      await ctx().call('POST', '/ui/package/workflow/add', {
        token,
        body: { dsiId: pkg.dsiId, type: 'device', deviceTemplateId: used.deviceTemplateId },
      });
      expectToken(await deleteTemplate(used.deviceTemplateId), 420, 'deviceTemplateInUse');
      expect((await deleteTemplate(unused.deviceTemplateId)).statusCode).toBe(200);
      expectToken(await deleteTemplate(unused.deviceTemplateId), 420, 'deviceTemplateNotPresent');
      expectToken(
        await ctx().call('GET', `/ui/package/device-template/fetch?deviceTemplateId=${unused.deviceTemplateId}`, { token }),
        420,
        'deviceTemplateNotPresent',
      );
    });

    it('never leaves a step naming a deleted template when steps are added and edited during the delete', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      for (let round = 0; round < 6; round += 1) {
        const template = (await importTemplate(ctx(), templateDocument({ name: `Racing ${round}` }))).json<TDeviceTemplate>();
        const packages = await Promise.all([0, 1, 2].map(() => createPackage(ctx())));
        // a manual step on the last package, edited into a device step during the delete
        const manual = await ctx().call('POST', '/ui/package/workflow/add', {
          token,
          body: { dsiId: packages[2]!.dsiId, type: 'manual', instructions: 'Clean the bed' },
        });
        expect(manual.statusCode, manual.body).toBe(200);
        const { workflowStepId } = manual.json<{ workflowStepId: string }>();
        const answers = await Promise.all([
          ctx().call('POST', '/ui/package/workflow/add', {
            token,
            body: { dsiId: packages[0]!.dsiId, type: 'device', deviceTemplateId: template.deviceTemplateId },
          }),
          ctx().call('POST', '/ui/package/device-template/delete', {
            token,
            body: { deviceTemplateId: template.deviceTemplateId },
          }),
          ctx().call('POST', '/ui/package/workflow/add', {
            token,
            body: { dsiId: packages[1]!.dsiId, type: 'device', deviceTemplateId: template.deviceTemplateId },
          }),
          ctx().call('POST', '/ui/package/workflow/edit', {
            token,
            body: {
              dsiId: packages[2]!.dsiId,
              workflowStepId,
              type: 'device',
              deviceTemplateId: template.deviceTemplateId,
            },
          }),
        ]);
        const [deleted, ...stepCalls] = [answers[1]!, answers[0]!, answers[2]!, answers[3]!];
        const stored = await db
          .selectFrom('device_templates')
          .select('id')
          .where('id', '=', template.deviceTemplateId)
          .executeTakeFirst();
        const naming = await db
          .selectFrom('workflow_steps')
          .select('id')
          .where('device_template_id', '=', template.deviceTemplateId)
          .execute();
        if (deleted.statusCode === 200) {
          // the delete went first: every step call after it finds no template
          for (const answer of stepCalls) expectToken(answer, 420, 'deviceTemplateNotPresent', 'deviceTemplateId');
          expect(stored).toBeUndefined();
          expect(naming).toEqual([]);
        } else {
          // a step took the template first: the delete is refused, every step call succeeds
          expectToken(deleted, 420, 'deviceTemplateInUse', 'deviceTemplateId');
          for (const answer of stepCalls) expect(answer.statusCode, answer.body).toBe(200);
          expect(stored).toBeDefined();
          expect(naming).toHaveLength(3);
        }
      }
      const dangling = await db
        .selectFrom('workflow_steps')
        .leftJoin('device_templates', 'device_templates.id', 'workflow_steps.device_template_id')
        .select('workflow_steps.id')
        .where('workflow_steps.device_template_id', 'is not', null)
        .where('device_templates.id', 'is', null)
        .execute();
      expect(dangling).toEqual([]);
    });
  });
});
