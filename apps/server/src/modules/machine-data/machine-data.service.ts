import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { TDtl } from '@manifold/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { sanitizeFileName } from '../../lib/file-names.js';
import { isoNow } from '../../lib/time.js';
import { uploadError } from '../../lib/upload-errors.js';
import { type Storage, type StoredObject } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { MachineDataRepository } from './machine-data.repository.js';

/** Whose data an upload is: the machine, and the licence it belongs to if any. */
export interface DtlTarget {
  deviceId: string;
  authorizationId: string | null;
  orderId: string | null;
  dsiId: string | null;
}

/** A machine's upload token, checked: spent only when its file is stored. */
export interface UploadGrant extends DtlTarget {
  tokenHash: string;
}

export interface DtlFile {
  stream: Readable;
  fileName: string | undefined;
}

type DtlValues = Parameters<MachineDataRepository['insertDtl']>[0];

function dtlEntry(row: DtlValues & { size: number }): TDtl {
  return {
    dtlId: row.id,
    deviceId: row.device_id,
    authorizationId: row.authorization_id ?? null,
    orderId: row.order_id ?? null,
    dsiId: row.dsi_id ?? null,
    fileName: row.file_name,
    size: row.size,
    sha256: row.sha256,
    manageId: row.manage_id ?? null,
    dateCreated: row.created_at,
  };
}

/**
 * Machine data (spec §3 Machine data licence, §7 `/mpf/dtl`, `storage/dtl/upload`, `dtl/list`):
 * files a machine or a user uploads, streamed into the storage (SHA-256 computed on the way),
 * recorded as DTL records with an audit record, in one transaction (docs/traceability.md).
 */
export class MachineDataService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly uploadMaxBytes: number,
  ) {}

  private repository(db = this.database.db): MachineDataRepository {
    return new MachineDataRepository(db);
  }

  /**
   * `/mpf/dtl`: the token a machine got from `/stp/upload/token` with purpose `dtl` — unspent,
   * unexpired, of an approved and enabled machine. Anything else: 401 `uploadTokenInvalid`.
   */
  async checkUploadToken(token: string | undefined): Promise<UploadGrant> {
    const invalid = () => new AppError('uploadTokenInvalid', { field: 'token' });
    if (!token || token.length > 256) throw invalid();
    const tokenHash = createHash('sha256').update(token).digest('hex');
    const repository = this.repository();
    const found = await repository.uploadToken(tokenHash);
    if (!found || found.purpose !== 'dtl' || found.used_at !== null || found.expires_at <= isoNow()) throw invalid();
    const device = await repository.device(found.device_id);
    if (!device || device.registration_state !== 'Approved' || device.disabled === 1) throw invalid();
    const authorization = found.authorization_id
      ? await repository.authorizationOf(found.authorization_id, device.id)
      : undefined;
    return {
      tokenHash,
      deviceId: device.id,
      authorizationId: authorization?.id ?? null,
      orderId: authorization?.order_id ?? null,
      dsiId: authorization?.dsi_id ?? null,
    };
  }

  /**
   * `storage/dtl/upload`: the machine (`deviceIdNotValid` unless registered) and optionally an
   * authorization of it (`authorizationNotAvailable` otherwise). A USER names an authorization of
   * an order of their groups (the DTL list shows them only those).
   */
  async checkConsoleTarget(
    input: { deviceId: string; authorizationId: string | undefined },
    caller: Pick<Caller, 'userId' | 'role'>,
  ): Promise<DtlTarget> {
    const repository = this.repository();
    if (!(await repository.device(input.deviceId))) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
    if (!input.authorizationId) {
      if (caller.role !== 'ADMIN') throw new AppError('authorizationNotAvailable', { field: 'authorizationId' });
      return { deviceId: input.deviceId, authorizationId: null, orderId: null, dsiId: null };
    }
    const authorization = await repository.authorizationOf(input.authorizationId, input.deviceId);
    if (!authorization || (caller.role !== 'ADMIN' && !(await repository.orderVisibleTo(authorization.order_id, caller)))) {
      throw new AppError('authorizationNotAvailable', { field: 'authorizationId' });
    }
    return {
      deviceId: input.deviceId,
      authorizationId: authorization.id,
      orderId: authorization.order_id,
      dsiId: authorization.dsi_id,
    };
  }

  /** A machine's file: stored, then its token spent with the record (`machineDataReceived`). */
  async receiveFromMachine(grant: UploadGrant, file: DtlFile, sourceIp: string): Promise<TDtl> {
    return this.record(grant, file, async (trx, row) => {
      if (!(await this.repository(trx).spendUploadToken(grant.tokenHash, row.created_at))) {
        throw new AppError('uploadTokenInvalid', { field: 'token' });
      }
      await new AuditRepository(trx, this.database.dialect).record({
        type: 'machineDataReceived',
        actor: `device:${grant.deviceId}`,
        subject: grant.orderId ?? grant.deviceId,
        details: this.auditDetails(row),
        sourceIp,
      });
    });
  }

  /** A user's upload of a machine's file (`machineDataStored`). */
  async uploadFromConsole(target: DtlTarget, file: DtlFile, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TDtl> {
    return this.record(target, file, async (trx, row) => {
      await new AuditRepository(trx, this.database.dialect).recordBy(
        caller,
        'machineDataStored',
        target.orderId ?? target.deviceId,
        this.auditDetails(row),
      );
    });
  }

  private auditDetails(row: DtlValues & { size: number }) {
    return {
      dtlId: row.id,
      deviceId: row.device_id,
      authorizationId: row.authorization_id,
      fileName: row.file_name,
      size: row.size,
      sha256: row.sha256,
    };
  }

  /** Streams the file into the storage, then records it; the stored object is removed if recording fails. */
  private async record(
    target: DtlTarget,
    file: DtlFile,
    inTransaction: (trx: Kysely<DB>, row: DtlValues & { size: number }) => Promise<void>,
  ): Promise<TDtl> {
    let stored: StoredObject;
    try {
      stored = await this.storage.put(file.stream, { maxBytes: this.uploadMaxBytes });
    } catch (error) {
      throw uploadError(error);
    }
    const row = {
      id: randomUUID(),
      device_id: target.deviceId,
      authorization_id: target.authorizationId,
      order_id: target.orderId,
      dsi_id: target.dsiId,
      file_name: sanitizeFileName(file.fileName),
      size: stored.size,
      sha256: stored.sha256,
      storage_key: stored.key,
      manage_id: null,
      created_at: isoNow(),
    };
    try {
      await this.database.transaction(async (trx) => {
        await this.repository(trx).insertDtl(row);
        await inTransaction(trx, row);
      });
    } catch (error) {
      await this.storage.delete(stored.key);
      throw error;
    }
    return dtlEntry(row);
  }
}
