import type { Kysely } from 'kysely';
import { manageTypes, type TDeviceParameter } from '@manifold/contract';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import type { DeviceRow, RevisionFileRow } from '../../db/schema-packages.js';

/** A machine as licensing sees it: its parameter bounds parsed (here, once). */
export type LicensedDevice = Omit<DeviceRow, 'parameters'> & { parameters: TDeviceParameter[] };

/**
 * What authorizations are handed to and carry: machines, downstream Manage instances, and the
 * files of the authorized design revision.
 */
export class RecipientsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async findDevice(id: string): Promise<LicensedDevice | undefined> {
    return (await this.findDevices([id])).get(id);
  }

  /** Machines by id, in one query (ids not found are absent). */
  async findDevices(ids: string[]): Promise<Map<string, LicensedDevice>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.db.selectFrom('devices').selectAll().where('id', 'in', unique).execute();
    return new Map(rows.map((row) => [row.id, { ...row, parameters: JSON.parse(row.parameters) as TDeviceParameter[] }]));
  }

  /** A Manage instance (not another kind of peer registration held in the same table). */
  async findManage(id: string): Promise<ManageInstanceRow | undefined> {
    return (await this.findManages([id])).get(id);
  }

  /** Manage instances by id, in one query (ids not found, or of another kind of peer, are absent). */
  async findManages(ids: string[]): Promise<Map<string, ManageInstanceRow>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('id', 'in', unique)
      .where('manage_type', 'in', manageTypes)
      .execute();
    return new Map(rows.map((row) => [row.id, row]));
  }

  revisionFiles(revisionId: string): Promise<RevisionFileRow[]> {
    return this.db.selectFrom('revision_files').selectAll().where('revision_id', '=', revisionId).orderBy('file_id').execute();
  }

  revisionFile(revisionId: string, fileId: string): Promise<RevisionFileRow | undefined> {
    return this.db
      .selectFrom('revision_files')
      .selectAll()
      .where('revision_id', '=', revisionId)
      .where('file_id', '=', fileId)
      .executeTakeFirst();
  }
}
