import type { Kysely } from 'kysely';
import type {
  TDeviceParameter,
  TDeviceTemplate,
  TDeviceTemplateDetail,
  TDeviceTemplateDocument,
  TPage,
  TPageQuery,
} from '@manifold/contract';
import { containsIgnoringCase, type Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { DeviceTemplateRow } from '../../db/schema-packages.js';

export class DeviceTemplatesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  find(id: string): Promise<DeviceTemplateRow | undefined> {
    return this.db.selectFrom('device_templates').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The template, locked until the transaction ends (PostgreSQL and MariaDB; SQLite has one
   * writer): a delete and the steps that name the template take it one at a time.
   */
  lock(id: string, dialect: Pick<Dialect, 'forUpdate'>): Promise<DeviceTemplateRow | undefined> {
    return dialect.forUpdate(this.db.selectFrom('device_templates').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  async insert(row: DeviceTemplateRow): Promise<void> {
    await this.db.insertInto('device_templates').values(row).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('device_templates').where('id', '=', id).execute();
  }

  async list(
    page: TPageQuery,
    filter: { packageId?: string | undefined; name?: string | undefined },
  ): Promise<TPage<TDeviceTemplate>> {
    let query = this.db.selectFrom('device_templates');
    if (filter.packageId) query = query.where('package_id', '=', filter.packageId);
    const term = filter.name?.trim();
    if (term) query = query.where(containsIgnoringCase('name', term));
    return paginate(
      query,
      page,
      (base) => base.selectAll().orderBy('name').orderBy('id'),
      (rows) => rows.map(toTemplate),
    );
  }

  /** The templates attached to a package (for the editor and the build). */
  async ofPackage(packageId: string): Promise<DeviceTemplateRow[]> {
    return this.db
      .selectFrom('device_templates')
      .selectAll()
      .where('package_id', '=', packageId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  async findMany(ids: string[]): Promise<DeviceTemplateRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('device_templates').selectAll().where('id', 'in', ids).execute();
  }

  /** Workflow steps that apply the template (it cannot go while they do). */
  async stepsUsing(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('workflow_steps')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('device_template_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

export function toTemplate(row: DeviceTemplateRow): TDeviceTemplate {
  return {
    deviceTemplateId: row.id,
    dsiId: row.package_id,
    name: row.name,
    description: row.description,
    target: row.target === null ? null : (JSON.parse(row.target) as TDeviceTemplate['target']),
    parameterVersion: row.parameter_version,
    parameterCount: row.parameter_count,
    sha256: row.sha256,
    dateCreated: row.created_at,
    createdBy: row.created_by,
  };
}

export function toTemplateDetail(row: DeviceTemplateRow): TDeviceTemplateDetail {
  const document = JSON.parse(row.document) as TDeviceTemplateDocument;
  return { ...toTemplate(row), parameters: document.parameters as TDeviceParameter[] };
}
