import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type {
  TPage,
  TPageQuery,
  TSvpAddRequest,
  TSvpEditRequest,
  TSvpManualAddRequest,
  TSvpManualEditRequest,
  TSvpTemplate,
  TSvpType,
  TSvpValue,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { SvpParameterRow, SvpValueRow } from '../../db/schema-quality.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { associationFault, checkManualValue, checkTemplateParameters, manualBound } from './svp-rules.js';
import { SvpRepository, type SvpValueView } from './svp.repository.js';

/** A file value's stored content. */
export interface StoredValueFile {
  key: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
}

function toParameter(row: SvpParameterRow) {
  return {
    parameterId: row.id,
    name: row.name,
    dataType: row.data_type,
    association: row.association,
    units: row.units,
    low: row.low === null ? null : Number(row.low),
    high: row.high === null ? null : Number(row.high),
    required: row.required === 1,
  };
}

function toValue(row: SvpValueView): TSvpValue {
  return {
    id: row.id,
    parameterId: row.parameter_id,
    parameterName: row.parameter_name,
    templateId: row.template_id,
    templateName: row.template_name,
    dataType: row.data_type,
    association: row.association,
    units: row.units,
    partId: row.part_id,
    buildId: row.build_id,
    value: row.value,
    dtlId: row.dtl_id,
    file:
      row.storage_key === null
        ? null
        : {
            fileName: row.file_name ?? 'file',
            contentType: row.content_type ?? 'application/octet-stream',
            size: Number(row.size ?? 0),
            sha256: row.sha256 ?? '',
          },
    createdBy: row.created_by,
    dateCreated: row.created_at,
    dateUpdated: row.updated_at,
  };
}

/**
 * Trace parameters (docs/quality.md, spec §3 Trace parameter): types, templates (named sets of
 * parameters with data type, association, units and bounds) and values recorded for builds and
 * parts (manual entries checked with the value rules, files streamed to storage and digested,
 * references to machine data records).
 */
export class SvpService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
  ) {}

  private repository(db = this.database.db): SvpRepository {
    return new SvpRepository(db);
  }

  // ------------------------------------------------------------ types

  async addType(input: { name: string; description: string }, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TSvpType> {
    const nameKey = input.name.toLowerCase();
    if (await this.repository().typeByNameKey(nameKey)) throw new AppError('svpTypeNameTaken', { field: 'name' });
    const row = { id: randomUUID(), name: input.name, name_key: nameKey, description: input.description, created_at: isoNow() };
    await this.database
      .transaction(async (trx) => {
        await this.repository(trx).insertType(row);
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'traceParameterTypeAdded', row.id, {
          name: row.name,
        });
      })
      .catch(nameTaken('svpTypeNameTaken'));
    return { id: row.id, name: row.name, description: row.description, dateCreated: row.created_at };
  }

  async listTypes(page: TPageQuery): Promise<TPage<TSvpType>> {
    const found = await this.repository().listTypes(page);
    return {
      ...found,
      data: found.data.map((row) => ({ id: row.id, name: row.name, description: row.description, dateCreated: row.created_at })),
    };
  }

  // ------------------------------------------------------------ templates

  private async checkTemplate(input: TSvpAddRequest, selfId?: string): Promise<void> {
    if (!(await this.repository().findType(input.typeId))) throw new AppError('svpTypeNotPresent', { field: 'typeId' });
    const taken = await this.repository().templateByNameKey(input.name.toLowerCase());
    if (taken && taken.id !== selfId) throw new AppError('svpTemplateNameTaken', { field: 'name' });
    const problems = new ErrorCollector();
    checkTemplateParameters(input.parameters, problems);
    problems.throwIfAny();
  }

  private parameterRows(templateId: string, input: TSvpAddRequest, ids: string[]) {
    return input.parameters.map((parameter, position) => ({
      id: ids[position]!,
      template_id: templateId,
      position,
      name: parameter.name,
      data_type: parameter.dataType,
      association: parameter.association,
      units: parameter.units ? parameter.units : null,
      low: parameter.low ?? null,
      high: parameter.high ?? null,
      required: parameter.required ? 1 : 0,
    }));
  }

  async addTemplate(input: TSvpAddRequest, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TSvpTemplate> {
    await this.checkTemplate(input);
    if (input.parameters.some((parameter) => parameter.parameterId !== undefined)) {
      throw new AppError('svpParameterNotPresent', {
        field: 'parameters',
        description: 'A new template names no existing parameters',
      });
    }
    const id = randomUUID();
    const now = isoNow();
    await this.database
      .transaction(async (trx) => {
        const repository = this.repository(trx);
        await repository.insertTemplate({
          id,
          type_id: input.typeId,
          name: input.name,
          name_key: input.name.toLowerCase(),
          description: input.description,
          created_at: now,
          updated_at: now,
        });
        await repository.insertParameters(
          this.parameterRows(
            id,
            input,
            input.parameters.map(() => randomUUID()),
          ),
        );
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'traceParameterTemplateChanged', id, {
          action: 'added',
          name: input.name,
        });
      })
      .catch(nameTaken('svpTemplateNameTaken'));
    return this.template(id);
  }

  /**
   * Replaces a template's name, type and parameters. A parameter named by `parameterId` is kept
   * (its values with it); one left out is removed. A parameter with values can be neither removed
   * nor changed in data type or association (`svpParameterInUse`).
   */
  async editTemplate(input: TSvpEditRequest, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TSvpTemplate> {
    if (!(await this.repository().findTemplate(input.id))) throw new AppError('svpTemplateNotPresent', { field: 'id' });
    await this.checkTemplate(input, input.id);
    // one edit of a template at a time: the parameters are read and checked under the template's
    // row lock, so two concurrent edits cannot both add a parameter of one name
    await this.database
      .transaction(async (trx) => {
        const repository = this.repository(trx);
        if (!(await repository.lockTemplate(input.id, this.database.dialect))) {
          throw new AppError('svpTemplateNotPresent', { field: 'id' });
        }
        // its parameters too, before their values are looked for: a value being recorded for one
        // commits first (and is seen here), or waits for the edit (and finds what it left)
        const existing = await repository.lockParametersOf(input.id, this.database.dialect);
        const byId = new Map(existing.map((row) => [row.id, row]));
        const inUse = await repository.parametersInUse(existing.map((row) => row.id));
        const problems = new ErrorCollector();
        const named = new Set<string>();
        input.parameters.forEach((parameter, index) => {
          if (parameter.parameterId === undefined) return;
          if (named.has(parameter.parameterId)) {
            return problems.add(
              'malformedRequest',
              `parameters[${index}].parameterId`,
              'A parameter is named once in a template',
            );
          }
          named.add(parameter.parameterId);
          const current = byId.get(parameter.parameterId);
          if (!current) return problems.add('svpParameterNotPresent', `parameters[${index}].parameterId`);
          if (
            inUse.has(current.id) &&
            (current.data_type !== parameter.dataType || current.association !== parameter.association)
          ) {
            problems.add('svpParameterInUse', `parameters[${index}].dataType`);
          }
        });
        const removed = existing.filter((row) => !named.has(row.id));
        for (const row of removed)
          if (inUse.has(row.id)) problems.add('svpParameterInUse', 'parameters', `${row.name} has values`);
        problems.throwIfAny();
        await repository.updateTemplate(input.id, {
          type_id: input.typeId,
          name: input.name,
          name_key: input.name.toLowerCase(),
          description: input.description,
          updated_at: isoNow(),
        });
        await repository.deleteParameters(removed.map((row) => row.id));
        const rows = this.parameterRows(
          input.id,
          input,
          input.parameters.map((parameter) => parameter.parameterId ?? randomUUID()),
        );
        for (const row of rows) {
          if (byId.has(row.id)) await repository.updateParameter(row.id, row);
          else await repository.insertParameters([row]);
        }
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'traceParameterTemplateChanged', input.id, {
          action: 'edited',
          name: input.name,
        });
      })
      .catch(nameTaken('svpTemplateNameTaken'));
    return this.template(input.id);
  }

  /** Deletes a template and its parameters; one whose parameters have values stays (`svpTemplateInUse`). */
  async deleteTemplate(id: string, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<void> {
    const template = await this.repository().findTemplate(id);
    if (!template) throw new AppError('svpTemplateNotPresent', { field: 'id' });
    await this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      // under the template's row lock, as an edit: a parameter an edit adds meanwhile is seen
      if (!(await repository.lockTemplate(id, this.database.dialect)))
        throw new AppError('svpTemplateNotPresent', { field: 'id' });
      const parameters = await repository.lockParametersOf(id, this.database.dialect);
      if ((await repository.parametersInUse(parameters.map((row) => row.id))).size > 0) {
        throw new AppError('svpTemplateInUse', { field: 'id' });
      }
      await repository.deleteTemplate(id);
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'traceParameterTemplateChanged', id, {
        action: 'deleted',
        name: template.name,
      });
    });
  }

  private async template(id: string): Promise<TSvpTemplate> {
    const row = (await this.repository().findTemplate(id))!;
    const parameters = await this.repository().parametersOf([id]);
    return {
      id: row.id,
      typeId: row.type_id,
      typeName: row.type_name,
      name: row.name,
      description: row.description,
      parameters: parameters.map(toParameter),
      dateCreated: row.created_at,
    };
  }

  async listTemplates(page: TPageQuery, filter: { typeId?: string | undefined }): Promise<TPage<TSvpTemplate>> {
    const found = await this.repository().listTemplates(page, filter);
    const parameters = await this.repository().parametersOf(found.data.map((row) => row.id));
    return {
      ...found,
      data: found.data.map((row) => ({
        id: row.id,
        typeId: row.type_id,
        typeName: row.type_name,
        name: row.name,
        description: row.description,
        parameters: parameters.filter((parameter) => parameter.template_id === row.id).map(toParameter),
        dateCreated: row.created_at,
      })),
    };
  }

  // ------------------------------------------------------------ values

  /**
   * The parameter, checked for the call's data types, and the build or part the value attaches
   * to. Given a transaction's repository (`lock`), the parameter is read under its row lock and
   * stays as read until the transaction ends: an edit of its template that removes or retypes it
   * either committed first (and is answered here) or waits, and then finds the value.
   */
  private async target(
    repository: SvpRepository,
    parameterId: string,
    dataTypes: SvpParameterRow['data_type'][],
    partId: string | undefined,
    buildId: string | undefined,
    lock: boolean,
  ): Promise<SvpParameterRow> {
    const parameter = lock
      ? await repository.lockParameter(parameterId, this.database.dialect)
      : await repository.findParameter(parameterId);
    if (!parameter) throw new AppError('svpParameterNotPresent', { field: 'parameterId' });
    if (!dataTypes.includes(parameter.data_type)) {
      throw new AppError('svpDataTypeMismatch', {
        field: 'parameterId',
        description: `The parameter takes ${parameter.data_type} values`,
      });
    }
    const part = partId === undefined ? undefined : await repository.part(partId);
    if (partId !== undefined && !part) throw new AppError('partNotPresent', { field: 'partId' });
    if (buildId !== undefined && !(await repository.buildExists(buildId))) {
      throw new AppError('buildNotPresent', { field: 'buildId' });
    }
    const fault = associationFault(parameter.association, { partId, buildId, partBuildId: part?.build_id });
    if (fault) {
      throw new AppError('svpAssociationMismatch', {
        field: fault,
        description: `A ${parameter.association} value attaches to ${parameter.association === 'BUILD_PART' ? 'a part and its build' : `a ${parameter.association.toLowerCase()} only`}`,
      });
    }
    return parameter;
  }

  /** The manual or DTL content of a value, checked: a manual entry with the value rules, a DTL naming a stored record. */
  private async content(
    repository: SvpRepository,
    parameter: SvpParameterRow,
    input: { value?: string | undefined; dtlId?: string | undefined },
  ): Promise<{ value: string | null; dtl_id: string | null }> {
    if (parameter.data_type === 'DTL') {
      if (input.value !== undefined)
        throw new AppError('svpDataTypeMismatch', { field: 'value', description: 'A DTL value names dtlId' });
      if (input.dtlId === undefined) throw new AppError('valueRequired', { field: 'dtlId' });
      if (!(await repository.dtlExists(input.dtlId))) throw new AppError('dtlNotPresent', { field: 'dtlId' });
      return { value: null, dtl_id: input.dtlId };
    }
    if (input.dtlId !== undefined)
      throw new AppError('svpDataTypeMismatch', { field: 'dtlId', description: 'A manual entry has a value' });
    const problems = new ErrorCollector();
    checkManualValue(manualBound({ parameterId: parameter.id, low: parameter.low, high: parameter.high }), input.value, problems);
    problems.throwIfAny();
    return { value: input.value!.trim(), dtl_id: null };
  }

  /**
   * Runs `work` in a transaction and audits the value it answers in the same one. The answer is
   * read there too: a delete committed right after cannot take it away from under the response.
   */
  private async audited<T extends AuditedValue>(
    caller: Pick<Caller, 'username' | 'sourceIp'>,
    action: 'added' | 'edited' | 'deleted',
    work: (repository: SvpRepository) => Promise<T>,
  ): Promise<T> {
    return this.database.transaction(async (trx) => {
      const value = await work(this.repository(trx));
      await new AuditRepository(trx, this.database.dialect).recordBy(
        caller,
        'traceParameterValueChanged',
        value.part_id ?? value.build_id ?? value.id,
        { action, valueId: value.id, parameterId: value.parameter_id, partId: value.part_id, buildId: value.build_id },
      );
      return value;
    });
  }

  /**
   * The value, locked until the transaction ends: its edits and its delete take it one at a
   * time, so an edit after the delete answers `svpValueNotPresent`, as it would a moment later.
   */
  private async lockedValue(repository: SvpRepository, id: string): Promise<SvpValueRow> {
    const value = await repository.lockValue(id, this.database.dialect);
    if (!value) throw new AppError('svpValueNotPresent', { field: 'id' });
    return value;
  }

  async addManual(input: TSvpManualAddRequest, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TSvpValue> {
    const added = await this.audited(caller, 'added', async (repository) => {
      const parameter = await this.target(
        repository,
        input.parameterId,
        ['MANUAL_ENTRY', 'DTL'],
        input.partId,
        input.buildId,
        true,
      );
      const content = await this.content(repository, parameter, input);
      const now = isoNow();
      const id = randomUUID();
      await repository.insertValue({
        id,
        parameter_id: parameter.id,
        part_id: input.partId ?? null,
        build_id: input.buildId ?? null,
        ...content,
        created_by: caller.username,
        created_at: now,
        updated_at: now,
      });
      return (await repository.findValue(id))!;
    });
    return toValue(added);
  }

  async editManual(input: TSvpManualEditRequest, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TSvpValue> {
    const edited = await this.audited(caller, 'edited', async (repository) => {
      const current = await this.lockedValue(repository, input.id);
      const parameter = (await repository.findParameter(current.parameter_id))!;
      if (parameter.data_type === 'FILE')
        throw new AppError('svpDataTypeMismatch', {
          field: 'id',
          description: 'A file value is edited with svp-value/file/edit',
        });
      const content = await this.content(repository, parameter, input);
      await repository.updateValue(current.id, { ...content, updated_at: isoNow() });
      return (await repository.findValue(current.id))!;
    });
    return toValue(edited);
  }

  /** Checks a file value's target before its file is stored. */
  async checkFileTarget(input: { parameterId: string; partId: string | undefined; buildId: string | undefined }): Promise<void> {
    await this.target(this.repository(), input.parameterId, ['FILE'], input.partId, input.buildId, false);
  }

  /**
   * Records a file value whose file was stored, checking its target again under the parameter's
   * lock (the template may have changed while the file streamed); on failure the stored file is
   * removed.
   */
  async addFile(
    input: { parameterId: string; partId: string | undefined; buildId: string | undefined },
    file: StoredValueFile,
    caller: Pick<Caller, 'username' | 'sourceIp'>,
  ): Promise<TSvpValue> {
    const added = await this.orRemove(file.key, () =>
      this.audited(caller, 'added', async (repository) => {
        await this.target(repository, input.parameterId, ['FILE'], input.partId, input.buildId, true);
        const now = isoNow();
        const id = randomUUID();
        await repository.insertValue({
          id,
          parameter_id: input.parameterId,
          part_id: input.partId ?? null,
          build_id: input.buildId ?? null,
          ...fileColumns(file),
          created_by: caller.username,
          created_at: now,
          updated_at: now,
        });
        return (await repository.findValue(id))!;
      }),
    );
    return toValue(added);
  }

  /** The file value `id` of parameter `parameterId`, before its new file is stored. */
  async checkFileEdit(input: { id: string; parameterId: string }): Promise<void> {
    const current = await this.repository().findValue(input.id);
    if (!current) throw new AppError('svpValueNotPresent', { field: 'id' });
    checkFileValue(current, input.parameterId);
  }

  /**
   * Replaces a file value's file under the value's lock; the file it replaced (the one the row
   * named when locked, so never another edit's newer one) is removed once the change committed.
   */
  async editFile(
    input: { id: string; parameterId: string },
    file: StoredValueFile,
    caller: Pick<Caller, 'username' | 'sourceIp'>,
  ): Promise<TSvpValue> {
    const { previous, edited } = await this.orRemove(file.key, async () => {
      let previous: string | null = null;
      const edited = await this.audited(caller, 'edited', async (repository) => {
        const current = await this.lockedValue(repository, input.id);
        const { data_type } = (await repository.findParameter(current.parameter_id))!;
        checkFileValue({ parameter_id: current.parameter_id, data_type }, input.parameterId);
        previous = current.storage_key;
        await repository.updateValue(current.id, { ...fileColumns(file), updated_at: isoNow() });
        return (await repository.findValue(current.id))!;
      });
      return { previous: previous as string | null, edited };
    });
    if (previous) await this.storage.delete(previous);
    return toValue(edited);
  }

  async deleteValue(id: string, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<void> {
    // the file removed is the one the row names under its lock, after any replacement committed
    const deleted = await this.audited(caller, 'deleted', async (repository) => {
      const current = await this.lockedValue(repository, id);
      await repository.deleteValue(id);
      return current;
    });
    if (deleted.storage_key) await this.storage.delete(deleted.storage_key);
  }

  async openFile(id: string): Promise<{ value: TSvpValue; stream: Readable }> {
    const current = await this.repository().findValue(id);
    if (!current || !current.storage_key) throw new AppError('svpValueNotPresent', { field: 'id' });
    return { value: toValue(current), stream: await this.storage.get(current.storage_key) };
  }

  async listValues(
    page: TPageQuery,
    filter: { partId?: string | undefined; buildId?: string | undefined; parameterId?: string | undefined },
  ): Promise<TPage<TSvpValue>> {
    let part: { id: string; buildId: string } | undefined;
    if (filter.partId) {
      const found = await this.repository().part(filter.partId);
      if (!found) throw new AppError('partNotPresent', { field: 'partId' });
      part = { id: found.id, buildId: found.build_id };
    }
    const found = await this.repository().listValues(page, { part, buildId: filter.buildId, parameterId: filter.parameterId });
    return { ...found, data: found.data.map(toValue) };
  }

  private async orRemove<T>(key: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.storage.delete(key);
      throw error;
    }
  }
}

/** What the audit record of a value change names. */
type AuditedValue = Pick<SvpValueRow, 'id' | 'parameter_id' | 'part_id' | 'build_id'>;

/** A file value of parameter `parameterId`: the value's parameter and its data type. */
function checkFileValue(value: { parameter_id: string; data_type: SvpParameterRow['data_type'] }, parameterId: string): void {
  if (value.parameter_id !== parameterId) {
    throw new AppError('svpParameterNotPresent', {
      field: 'parameterId',
      description: 'The value belongs to another parameter',
    });
  }
  if (value.data_type !== 'FILE') throw new AppError('svpDataTypeMismatch', { field: 'id' });
}

/** A name another request took between the check and the insert: the unique key answers it. */
function nameTaken(token: 'svpTypeNameTaken' | 'svpTemplateNameTaken') {
  return (error: unknown): never => {
    if (isUniqueViolation(error)) throw new AppError(token, { field: 'name' });
    throw error;
  };
}

function fileColumns(file: StoredValueFile) {
  return {
    value: null,
    dtl_id: null,
    file_name: file.fileName,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    storage_key: file.key,
  };
}
