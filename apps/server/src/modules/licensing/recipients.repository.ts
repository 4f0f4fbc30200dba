import { type Kysely, type RawBuilder, sql } from 'kysely';
import { manageTypes, type TDeviceParameter } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import type { DeviceRow, RevisionFileRow } from '../../db/schema-packages.js';

/** A machine as licensing sees it: its parameter bounds parsed (here, once). */
export type LicensedDevice = Omit<DeviceRow, 'parameters'> & { parameters: TDeviceParameter[] };

/** The machines and downstream Manage instances a batch of authorize requests is for (each id once). */
export interface AuthorizeTargets {
  deviceIds: string[];
  manageIds: string[];
}

/**
 * SQL true when every target still is what authorize's target rules (`checkTarget`) want: each
 * machine there, approved and not disabled; each Manage instance there, an approved downstream one.
 */
export function targetsQualify({ deviceIds, manageIds }: AuthorizeTargets): RawBuilder<boolean> {
  const counts = [
    ...(deviceIds.length > 0
      ? [
          sql`(select count(*) from devices where id in (${sql.join(deviceIds)})
            and registration_state = 'Approved' and disabled = 0)`,
        ]
      : []),
    ...(manageIds.length > 0
      ? [
          sql`(select count(*) from manage_instances where id in (${sql.join(manageIds)})
            and manage_type = 'downStreamManage' and registration_state = 'Approved')`,
        ]
      : []),
  ];
  if (counts.length === 0) return sql<boolean>`1 = 1`;
  return sql<boolean>`${sql.join(counts, sql` + `)} = ${deviceIds.length + manageIds.length}`;
}

/**
 * What authorizations are handed to and carry: machines, downstream Manage instances, and the
 * files of the authorized design revision.
 */
export class RecipientsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async findDevice(id: string): Promise<LicensedDevice | undefined> {
    return (await this.findDevices([id])).get(id);
  }

  /**
   * Machines by id, in one query (ids not found are absent). With `share`, inside a transaction:
   * their rows locked shared until it ends (`Dialect.forShare`), so they are neither deleted nor
   * changed meanwhile.
   */
  async findDevices(ids: string[], share?: Pick<Dialect, 'forShare'>): Promise<Map<string, LicensedDevice>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const query = this.db.selectFrom('devices').selectAll().where('id', 'in', unique);
    const rows = await (share ? share.forShare(query) : query).execute();
    return new Map(rows.map((row) => [row.id, { ...row, parameters: JSON.parse(row.parameters) as TDeviceParameter[] }]));
  }

  /** A Manage instance (not another kind of peer registration held in the same table). */
  async findManage(id: string): Promise<ManageInstanceRow | undefined> {
    return (await this.findManages([id])).get(id);
  }

  /**
   * Manage instances by id, in one query (ids not found, or of another kind of peer, are absent);
   * `share` as for {@link findDevices}.
   */
  async findManages(ids: string[], share?: Pick<Dialect, 'forShare'>): Promise<Map<string, ManageInstanceRow>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const query = this.db
      .selectFrom('manage_instances')
      .selectAll()
      .where('id', 'in', unique)
      .where('manage_type', 'in', manageTypes);
    const rows = await (share ? share.forShare(query) : query).execute();
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
