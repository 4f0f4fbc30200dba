import type { Kysely } from 'kysely';
import {
  type TDasTransferRequest,
  type TDesignPackage,
  type TDtlTransferRequest,
  type TMachineDataTransfer,
  type TPackageManifest,
  type TTransferResponse,
  ZMachineDataTransfer,
} from '@manifold/contract';
import { parseCertificateBundle } from '../../crypto/certificates.js';
import { wrapContentKey } from '../../crypto/design-keys.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { uploadError } from '../../lib/upload-errors.js';
import { chain } from '../../lib/upload-streams.js';
import { DigestCounter, type Storage } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { type FileCarrier, GiveUp } from '../outbox/outbox-delivery.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import type { IncomingFiles, MessageHandler, StoredFiles } from '../outbox/peer-messages.service.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { parseApl } from '../registrations/apl-checks.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';
import type { DesignPackages, ReceivedDesign } from './design-packages.js';
import { PeerDesignsRepository } from './peer-designs.repository.js';

const manageTypes = ['upStreamManage', 'downStreamManage'] as const;
const fromManage = (peer: ManageInstanceRow) => (manageTypes as readonly string[]).includes(peer.manage_type);

/**
 * `das/transfer` and `dtl/transfer` (docs/peer-network.md#designs-between-instances): a design
 * revision or a machine data record goes to a registered, approved Manage instance as an outbox
 * message that travels with its files. At each delivery attempt the revision's content keys are
 * unwrapped with this instance's key and wrapped again for the peer's encryption certificate, so
 * the peer — and the machines it authorizes — can open the private files; the stored bytes go as
 * they are. The receiving side is {@link handlers}.
 */
export class PeerTransfers {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly credentials: ServerCredentials,
    private readonly designs: DesignPackages,
    private readonly uploadMaxBytes: number,
  ) {}

  private repository(db: Kysely<DB> = this.database.db): PeerDesignsRepository {
    return new PeerDesignsRepository(db);
  }

  /** The approved Manage registration a transfer goes to: `manageIdNotValid`, `manageInstaceNotApproved`. */
  private async target(manageId: string): Promise<ManageInstanceRow> {
    const peer = await new PeerRegistrationsRepository(this.database.db).find(manageId, manageTypes);
    if (!peer || peer.registration_state === 'Cancelled') throw new AppError('manageIdNotValid', { field: 'manageId' });
    if (peer.registration_state !== 'Approved') {
      throw new AppError('manageInstaceNotApproved', {
        field: 'manageId',
        description: `The registration is ${peer.registration_state}`,
      });
    }
    return peer;
  }

  async transferDesign(input: TDasTransferRequest, caller: Caller): Promise<TTransferResponse> {
    if (!(await this.repository().packageExists(input.dsiId))) throw new AppError('packageNotPresent', { field: 'dsiId' });
    const revision = await this.repository().newestRevision(input.dsiId);
    if (!revision) {
      throw new AppError('packageNotPresent', { field: 'dsiId', description: 'The design package has no built revision' });
    }
    const peer = await this.target(input.manageId);
    return this.enqueue(caller, peer, 'design', revision.id, { revisionId: revision.id }, 'designTransferred', input.dsiId, {
      revisionId: revision.id,
      dsiVersion: revision.dsi_version,
    });
  }

  async transferDtl(input: TDtlTransferRequest, caller: Caller): Promise<TTransferResponse> {
    const dtl = await this.repository().dtl(input.dtlId);
    if (!dtl) throw new AppError('dtlNotPresent', { field: 'dtlId' });
    const peer = await this.target(input.manageId);
    return this.enqueue(caller, peer, 'machineData', dtl.id, { dtlId: dtl.id }, 'machineDataTransferred', dtl.id, {
      deviceId: dtl.device_id,
      sha256: dtl.sha256,
    });
  }

  private async enqueue(
    caller: Caller,
    peer: ManageInstanceRow,
    kind: 'design' | 'machineData',
    subjectId: string,
    body: Record<string, unknown>,
    auditType: 'designTransferred' | 'machineDataTransferred',
    auditSubject: string,
    details: Record<string, unknown>,
  ): Promise<TTransferResponse> {
    const messageId = await this.database.transaction(async (trx) => {
      const now = isoNow();
      const id = await new OutboxRepository(trx, this.database.dialect).enqueue(
        { kind, targetKind: 'manage', targetId: peer.id, subjectId, body },
        now,
      );
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, auditType, auditSubject, {
        ...details,
        manageId: peer.id,
        messageId: id,
      });
      return id;
    });
    return { messageId, manageId: peer.id, subjectId };
  }

  /** The receiving side: a design revision or a machine data record from an approved Manage peer. */
  handlers(): Record<'design' | 'machineData', MessageHandler> {
    const actor = (peer: ManageInstanceRow) => `manage:${peer.manage_site_name}`;
    return {
      design: {
        accepts: fromManage,
        files: { path: '/mpf/design', store: (_peer, body, files) => this.designs.store(body, files, 'apl.body') },
        apply: async (trx, peer, _body, { sourceIp }, stored) => {
          await this.designs.apply(trx, stored as ReceivedDesign, { actor: actor(peer), sourceIp, from: { manageId: peer.id } });
        },
      },
      machineData: {
        accepts: fromManage,
        files: { path: '/mpf/dtl', store: (_peer, body, files) => this.storeDtl(body, files) },
        apply: async (trx, peer, _body, { sourceIp, now }, stored) => {
          const received = stored as ReceivedDtl;
          const repository = this.repository(trx);
          if (await repository.dtl(received.record.dtlId)) return;
          await repository.insertDtl({
            id: received.record.dtlId,
            device_id: received.record.deviceId,
            authorization_id: received.record.authorizationId,
            order_id: received.record.orderId,
            dsi_id: received.record.dsiId,
            file_name: received.record.fileName,
            size: received.record.size,
            sha256: received.record.sha256,
            storage_key: received.key,
            manage_id: peer.id,
            created_at: now,
          });
          await new AuditRepository(trx, this.database.dialect).record({
            type: 'machineDataReceived',
            actor: actor(peer),
            subject: received.record.dtlId,
            sourceIp,
            details: { manageId: peer.id, deviceId: received.record.deviceId, sha256: received.record.sha256 },
          });
          received.used = true;
        },
      },
    };
  }

  /** Stores a machine data record's file, which must match its size and SHA-256. */
  private async storeDtl(body: unknown, files: IncomingFiles): Promise<StoredFiles & { value: ReceivedDtl }> {
    const record = parseApl(ZMachineDataTransfer, body, 'apl.body');
    const part = await files.next();
    if (!part) throw new AppError('uploadFileMissing', { field: 'file' });
    const digest = new DigestCounter(this.uploadMaxBytes);
    let key: string;
    try {
      key = (await this.storage.put(chain(part.stream, digest), { maxBytes: this.uploadMaxBytes })).key;
    } catch (error) {
      throw uploadError(error);
    }
    if (digest.size !== record.size || digest.sha256() !== record.sha256) {
      await this.storage.delete(key);
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'apl.body.sha256',
        description: 'The file does not match the size and SHA-256 of the record',
      });
    }
    const value: ReceivedDtl = { record, key, used: false };
    return {
      value,
      done: async (applied) => {
        if (!applied || !value.used) await this.storage.delete(key);
      },
    };
  }
}

interface ReceivedDtl {
  record: TMachineDataTransfer;
  key: string;
  used: boolean;
}

/**
 * How `design` and `machineData` messages are made for the peer at each delivery attempt (the
 * `outbox.deliver` job): the revision's content keys wrapped for the peer, the stored files after.
 */
export function transferCarriers(
  database: Database,
  storage: Storage,
  credentials: ServerCredentials,
): Record<'design' | 'machineData', FileCarrier> {
  const repository = new PeerDesignsRepository(database.db);
  return {
    design: {
      path: '/mpf/design',
      prepare: async (row, peer) => {
        const { revisionId } = JSON.parse(row.payload) as { revisionId: string };
        const revision = await repository.revision(revisionId);
        if (!revision) throw new GiveUp('The design revision no longer exists');
        const stored = new Map((await repository.revisionFiles(revisionId)).map((file) => [file.file_id, file]));
        const manifest = JSON.parse(revision.manifest) as TPackageManifest;
        const recipient = parseCertificateBundle(peer.encryption_certificate!)[0]!.pem;
        const files: TDesignPackage['files'] = [];
        const parts = [];
        for (const entry of manifest.files) {
          const file = stored.get(entry.fileId);
          if (!file) throw new GiveUp(`The file ${entry.fileId} of the revision no longer exists`);
          const wrappedKey = file.wrapped_key
            ? await wrapContentKey(await credentials.unwrapContentKey(file.wrapped_key), recipient)
            : null;
          files.push({ fileId: file.file_id, wrappedKey });
          parts.push({
            name: 'file',
            filename: file.file_name,
            contentType: 'application/octet-stream',
            open: () => storage.get(file.storage_key),
          });
        }
        const body: TDesignPackage = {
          revisionId,
          manifest: revision.manifest,
          manifestSignature: revision.signature,
          signerCertificate: revision.signer_certificate ?? (await credentials.identity('signing')).chainPem,
          files,
        };
        return { body, files: parts };
      },
    },
    machineData: {
      path: '/mpf/dtl',
      prepare: async (row) => {
        const { dtlId } = JSON.parse(row.payload) as { dtlId: string };
        const dtl = await repository.dtl(dtlId);
        if (!dtl) throw new GiveUp('The machine data record no longer exists');
        const body: TMachineDataTransfer = {
          dtlId: dtl.id,
          deviceId: dtl.device_id,
          authorizationId: dtl.authorization_id,
          orderId: dtl.order_id,
          dsiId: dtl.dsi_id,
          fileName: dtl.file_name,
          size: Number(dtl.size),
          sha256: dtl.sha256,
          dateCreated: dtl.created_at,
        };
        const open = () => storage.get(dtl.storage_key);
        return { body, files: [{ name: 'file', filename: dtl.file_name, contentType: 'application/octet-stream', open }] };
      },
    },
  };
}
