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
    const row = await this.db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
    return row && { ...row, parameters: JSON.parse(row.parameters) as TDeviceParameter[] };
  }

  /** A Manage instance (not another kind of peer registration held in the same table). */
  findManage(id: string): Promise<ManageInstanceRow | undefined> {
    return this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('id', '=', id)
      .where('manage_type', 'in', manageTypes)
      .executeTakeFirst();
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
