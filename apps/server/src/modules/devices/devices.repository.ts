import { type Kysely, sql } from 'kysely';
import type { TDevice, TDeviceDetail, TDeviceParameter, TPage, TPageQuery, TRegistrationState } from '@manifold/contract';
import { describeCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import type { Dialect } from '../../db/dialect.js';
import { paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import { nextVersion } from '../../db/version.js';
import type { DB } from '../../db/schema.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import { isoNow } from '../../lib/time.js';

/** Which machines a list shows: approved only or every other state; a search in name, deviceId or serial number. */
export interface DeviceListFilter {
  approved?: boolean;
  search?: string;
}

export class DevicesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  find(id: string): Promise<DeviceRow | undefined> {
    return this.db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The registration of the same machine: same identity id or same signing certificate. */
  /** What a Trace instance is told of machines (`device` messages): identity and signing certificate. */
  reportable(ids: string[]) {
    return this.db
      .selectFrom('devices')
      .select(['id', 'name', 'serial_number', 'model', 'manufacturer', 'signing_certificate'])
      .where('id', 'in', ids)
      .execute();
  }

  findSameMachine(identityId: string, signingFingerprint: string): Promise<DeviceRow | undefined> {
    return this.db
      .selectFrom('devices')
      .selectAll()
      .where((eb) => eb.or([eb('identity_id', '=', identityId), eb('signing_fingerprint', '=', signingFingerprint)]))
      .executeTakeFirst();
  }

  async insert(row: DeviceRow): Promise<void> {
    await this.db.insertInto('devices').values(row).execute();
  }

  /** Changes a device only if its version is still `expectedVersion` (one writer wins); answers the changed row. */
  async updateIfVersion(
    id: string,
    expectedVersion: number,
    changes: Partial<Omit<DeviceRow, 'id' | 'version'>>,
  ): Promise<DeviceRow | undefined> {
    const result = await this.db
      .updateTable('devices')
      .set({ ...changes, version: nextVersion() })
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? this.find(id) : undefined;
  }

  /** The device, locked until the transaction ends (PostgreSQL and MariaDB; SQLite has one writer). */
  lock(id: string, dialect: Pick<Dialect, 'forUpdate'>): Promise<DeviceRow | undefined> {
    return dialect.forUpdate(this.db.selectFrom('devices').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  async imageInUse(name: string): Promise<boolean> {
    return (await this.db.selectFrom('devices').select('id').where('image', '=', name).executeTakeFirst()) !== undefined;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('devices').where('id', '=', id).execute();
  }

  async list(page: TPageQuery, { approved, search }: DeviceListFilter = {}): Promise<TPage<TDevice>> {
    let query = this.db.selectFrom('devices');
    if (approved === true) query = query.where('registration_state', '=', 'Approved');
    if (approved === false) query = query.where('registration_state', '<>', 'Approved');
    const term = search?.trim();
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['devices', approved ?? null, term ?? '']),
        tables: ['devices'],
        readByKey: true,
        ...(approved === undefined && !term ? { counted: [WHOLE_TABLE] } : {}),
        ...(term ? { search: { columns: ['devices.name', 'devices.id', 'devices.serial_number'], term } } : {}),
      },
      query,
      { value: sql.ref('devices.created_at'), id: sql.ref('devices.id'), direction: 'desc' },
      page,
      (base) => base.select(deviceColumns),
      (rows) => rows.map(toDevice),
    );
  }

  /**
   * Live authorizations the machine holds: `entity_references` rows of target kind `device`
   * that the authorizations feature adds when it issues one and releases when it is revoked or
   * used up; an expired one is not live.
   */
  async countLiveAuthorizations(deviceId: string, now = isoNow()): Promise<number> {
    const row = await this.db
      .selectFrom('entity_references')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('target_kind', '=', 'device')
      .where('target_id', '=', deviceId)
      .where('released_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Marks the machine's references released (a forced delete), for the owners of those rows to act on. */
  async releaseReferences(deviceId: string, now = isoNow()): Promise<void> {
    await this.db
      .updateTable('entity_references')
      .set({ released_at: now })
      .where('target_kind', '=', 'device')
      .where('target_id', '=', deviceId)
      .where('released_at', 'is', null)
      .execute();
  }
}

/** The columns a device in a list shows (not its certificates). */
const deviceColumns = [
  'id',
  'registration_state',
  'created_at',
  'updated_at',
  'authorized_users',
  'identity_id',
  'name',
  'serial_number',
  'model',
  'family',
  'manufacturer',
  'image',
  'device_class',
  'technology',
  'disabled',
  'version',
  'parameter_version',
] as const;

export function toDevice(row: Pick<DeviceRow, (typeof deviceColumns)[number]>): TDevice {
  return {
    deviceId: row.id,
    registrationState: row.registration_state as TRegistrationState,
    dateCreated: row.created_at,
    dateModified: row.updated_at,
    authorizedUserList: JSON.parse(row.authorized_users) as string[],
    deviceIdentity: {
      id: row.identity_id,
      name: row.name,
      serialNumber: row.serial_number,
      model: row.model,
      family: row.family,
      manufacturer: row.manufacturer,
      image: row.image,
      deviceClass: row.device_class,
      technology: row.technology,
    },
    disabled: row.disabled === 1,
    version: row.version,
    parameterVersion: row.parameter_version,
    approved: row.registration_state === 'Approved',
  };
}

function certificateView(pem: string): TDeviceDetail['signingCertificate'] {
  const description = describeCertificate(parseCertificateBundle(pem)[0]!);
  return {
    subject: description.subject,
    issuer: description.issuer,
    keySerialNumber: description.serialNumber,
    fingerprintSha256: description.fingerprintSha256,
    notAfter: description.notAfter.toISOString(),
    keyUsage: description.keyUsage,
  };
}

export function toDeviceDetail(row: DeviceRow): TDeviceDetail {
  return {
    ...toDevice(row),
    parameters: JSON.parse(row.parameters) as TDeviceParameter[],
    signingCertificate: certificateView(row.signing_certificate),
    encryptionCertificate: certificateView(row.encryption_certificate),
  };
}
