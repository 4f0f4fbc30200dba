import { ZForwardedEventBatch, ZReportedDevice } from '@manifold/contract';
import type { Kysely } from 'kysely';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { parseCertificateBundle } from '../../crypto/certificates.js';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { WriteSet } from '../../db/write-set.js';
import { AppError } from '../../lib/app-error.js';
import { parseApl } from '../registrations/apl-checks.js';
import { batchRow, EventsRepository } from './events.repository.js';
import { batchIdOf } from './trace-event-format.js';

/**
 * The Trace side of a reporting Manage instance's `device` message (docs/traceability.md,
 * "Machines and batches on the Trace side"): a machine it approved, kept with its signing
 * certificate so the machine's forwarded history can be exported and checked offline here. The
 * same machine reported again (by any instance) with the same certificate changes nothing; with
 * another certificate it is refused (`registrationExchangeAlreadyRegistered`): a machine id
 * names one signing key.
 */
export async function receiveReportedDevice(
  trx: Kysely<DB>,
  dialect: Dialect,
  peer: ManageInstanceRow,
  input: unknown,
  now: string,
): Promise<void> {
  const device = parseApl(ZReportedDevice, input, 'apl.body');
  try {
    parseCertificateBundle(device.signingCertificate);
  } catch (error) {
    if (!isCryptoError(error)) throw error;
    throw new AppError('registrationExchangeInvalidApl', {
      field: 'apl.body.signingCertificate',
      description: `Not a certificate: ${error.message}`,
    });
  }
  const repository = new EventsRepository(trx, dialect);
  const known = await repository.peerDeviceCertificate(device.deviceId);
  if (known !== undefined) {
    if (known === device.signingCertificate) return;
    throw new AppError('registrationExchangeAlreadyRegistered', {
      field: 'apl.body.deviceId',
      description: 'A machine with this id was reported with another signing certificate',
    });
  }
  const { deviceId, signingCertificate, ...identity } = device;
  await repository.insertPeerDevice({
    device_id: deviceId,
    manage_id: peer.id,
    identity: JSON.stringify(identity),
    signing_certificate: signingCertificate,
    received_at: now,
  });
}

/**
 * An `eventBatch` message: the envelope a batch-signed event forwarded here names, stored once
 * under its id (which must be the SHA-256 of its signature, else `registrationExchangeInvalidApl`
 * on `apl.body.batchId`). Its signature is checked by whoever checks the history offline, against
 * the machine's certificate.
 */
export async function receiveForwardedBatch(trx: Kysely<DB>, dialect: Dialect, input: unknown, now: string): Promise<void> {
  const { batchId, envelope } = parseApl(ZForwardedEventBatch, input, 'apl.body');
  if (batchIdOf(envelope) !== batchId) {
    throw new AppError('registrationExchangeInvalidApl', {
      field: 'apl.body.batchId',
      description: "The id is not the SHA-256 of the envelope's signature",
    });
  }
  const writes = new WriteSet(trx, dialect.kind);
  await new EventsRepository(trx, dialect).insertBatches(writes, [batchRow(batchId, envelope, now)], { unlessStored: true });
  await writes.flush();
}
