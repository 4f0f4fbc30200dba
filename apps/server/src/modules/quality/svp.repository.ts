import type { Insertable, Kysely, Updateable } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type {
  SvpParameterRow,
  SvpParametersTable,
  SvpTemplatesTable,
  SvpTypesTable,
  SvpValueRow,
  SvpValuesTable,
} from '../../db/schema-quality.js';

/** A value with its parameter and template, as listed. */
export type SvpValueView = SvpValueRow & {
  parameter_name: string;
  template_id: string;
  template_name: string;
  data_type: SvpParameterRow['data_type'];
  association: SvpParameterRow['association'];
  units: string | null;
};

/** Trace parameters: types, templates and their parameters, values. */
export class SvpRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insertType(row: Insertable<SvpTypesTable>): Promise<void> {
    await this.db.insertInto('svp_types').values(row).execute();
  }

  typeByNameKey(nameKey: string) {
    return this.db.selectFrom('svp_types').selectAll().where('name_key', '=', nameKey).executeTakeFirst();
  }

  findType(id: string) {
    return this.db.selectFrom('svp_types').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listTypes(page: TPageQuery) {
    return paginate(
      this.db.selectFrom('svp_types'),
      page,
      (query) => query.selectAll().orderBy('name_key').orderBy('id'),
      (rows) => rows,
    );
  }

  async insertTemplate(row: Insertable<SvpTemplatesTable>): Promise<void> {
    await this.db.insertInto('svp_templates').values(row).execute();
  }

  async updateTemplate(id: string, changes: Updateable<SvpTemplatesTable>): Promise<void> {
    await this.db.updateTable('svp_templates').set(changes).where('id', '=', id).execute();
  }

  templateByNameKey(nameKey: string) {
    return this.db.selectFrom('svp_templates').selectAll().where('name_key', '=', nameKey).executeTakeFirst();
  }

  findTemplate(id: string) {
    return this.db
      .selectFrom('svp_templates')
      .innerJoin('svp_types', 'svp_types.id', 'svp_templates.type_id')
      .selectAll('svp_templates')
      .select('svp_types.name as type_name')
      .where('svp_templates.id', '=', id)
      .executeTakeFirst();
  }

  /** Locks a template's row for the transaction (SQLite runs one writer at a time); undefined when it does not exist. */
  lockTemplate(id: string, dialect: Dialect): Promise<{ id: string } | undefined> {
    return dialect.forUpdate(this.db.selectFrom('svp_templates').select('id').where('id', '=', id)).executeTakeFirst();
  }

  listTemplates(page: TPageQuery, filter: { typeId?: string | undefined }) {
    let base = this.db.selectFrom('svp_templates').innerJoin('svp_types', 'svp_types.id', 'svp_templates.type_id');
    if (filter.typeId) base = base.where('svp_templates.type_id', '=', filter.typeId);
    return paginate(
      base,
      page,
      (query) =>
        query
          .selectAll('svp_templates')
          .select('svp_types.name as type_name')
          .orderBy('svp_templates.name_key')
          .orderBy('svp_templates.id'),
      (rows) => rows,
    );
  }

  async deleteTemplate(id: string): Promise<void> {
    await this.db.deleteFrom('svp_parameters').where('template_id', '=', id).execute();
    await this.db.deleteFrom('svp_templates').where('id', '=', id).execute();
  }

  parametersOf(templateIds: string[]): Promise<SvpParameterRow[]> {
    if (templateIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('svp_parameters')
      .selectAll()
      .where('template_id', 'in', templateIds)
      .orderBy('template_id')
      .orderBy('position')
      .execute();
  }

  findParameter(id: string): Promise<SvpParameterRow | undefined> {
    return this.db.selectFrom('svp_parameters').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The parameter, locked until the transaction ends (SQLite runs one writer at a time): a value
   * being recorded for it and an edit of its template that removes or retypes it go one at a time.
   */
  lockParameter(id: string, dialect: Dialect): Promise<SvpParameterRow | undefined> {
    return dialect.forUpdate(this.db.selectFrom('svp_parameters').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  /** A template's parameters in their order, each locked as `lockParameter` locks one. */
  lockParametersOf(templateId: string, dialect: Dialect): Promise<SvpParameterRow[]> {
    return dialect
      .forUpdate(this.db.selectFrom('svp_parameters').selectAll().where('template_id', '=', templateId).orderBy('position'))
      .execute();
  }

  async insertParameters(rows: Insertable<SvpParametersTable>[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('svp_parameters').values(rows).execute();
  }

  async updateParameter(id: string, changes: Updateable<SvpParametersTable>): Promise<void> {
    await this.db.updateTable('svp_parameters').set(changes).where('id', '=', id).execute();
  }

  async deleteParameters(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('svp_parameters').where('id', 'in', ids).execute();
  }

  /** The parameters among `ids` that have values. */
  async parametersInUse(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('svp_values')
      .select('parameter_id')
      .distinct()
      .where('parameter_id', 'in', ids)
      .execute();
    return new Set(rows.map((row) => row.parameter_id));
  }

  part(id: string) {
    return this.db.selectFrom('parts').select(['id', 'build_id']).where('id', '=', id).executeTakeFirst();
  }

  async buildExists(id: string): Promise<boolean> {
    return (await this.db.selectFrom('builds').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async dtlExists(id: string): Promise<boolean> {
    return (await this.db.selectFrom('dtls').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async insertValue(row: Insertable<SvpValuesTable>): Promise<void> {
    await this.db.insertInto('svp_values').values(row).execute();
  }

  async updateValue(id: string, changes: Updateable<SvpValuesTable>): Promise<void> {
    await this.db.updateTable('svp_values').set(changes).where('id', '=', id).execute();
  }

  async deleteValue(id: string): Promise<void> {
    await this.db.deleteFrom('svp_values').where('id', '=', id).execute();
  }

  private values() {
    return this.db
      .selectFrom('svp_values')
      .innerJoin('svp_parameters', 'svp_parameters.id', 'svp_values.parameter_id')
      .innerJoin('svp_templates', 'svp_templates.id', 'svp_parameters.template_id');
  }

  private valueColumns<Q extends ReturnType<SvpRepository['values']>>(query: Q) {
    return query
      .selectAll('svp_values')
      .select([
        'svp_parameters.name as parameter_name',
        'svp_parameters.template_id',
        'svp_templates.name as template_name',
        'svp_parameters.data_type',
        'svp_parameters.association',
        'svp_parameters.units',
      ]);
  }

  findValue(id: string): Promise<SvpValueView | undefined> {
    return this.valueColumns(this.values().where('svp_values.id', '=', id)).executeTakeFirst();
  }

  /** The value's row, locked until the transaction ends (SQLite runs one writer at a time). */
  lockValue(id: string, dialect: Dialect): Promise<SvpValueRow | undefined> {
    return dialect.forUpdate(this.db.selectFrom('svp_values').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  /**
   * Values newest first. `part` (with its build) keeps the values of the part and those of its
   * build that name no part: everything recorded about it.
   */
  listValues(
    page: TPageQuery,
    filter: {
      part?: { id: string; buildId: string } | undefined;
      buildId?: string | undefined;
      parameterId?: string | undefined;
    },
  ): Promise<TPage<SvpValueView>> {
    let base = this.values();
    const { part } = filter;
    if (part) {
      base = base.where((eb) =>
        eb.or([
          eb('svp_values.part_id', '=', part.id),
          eb.and([eb('svp_values.build_id', '=', part.buildId), eb('svp_values.part_id', 'is', null)]),
        ]),
      );
    }
    if (filter.buildId) base = base.where('svp_values.build_id', '=', filter.buildId);
    if (filter.parameterId) base = base.where('svp_values.parameter_id', '=', filter.parameterId);
    return paginate(
      base,
      page,
      (query) => this.valueColumns(query).orderBy('svp_values.created_at', 'desc').orderBy('svp_values.id', 'desc'),
      (rows) => rows,
    );
  }
}
