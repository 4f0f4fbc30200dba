import type { TOrderSender } from '@manifold/contract';
import { describeCertificate, parseCertificateBundle, validityAt } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { certificateThumbprint } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import type { OrderSenderRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { OrderSendersRepository, toSender } from './order-senders.repository.js';

/**
 * Order senders (the partner interface): end-entity certificates an ADMIN trusts to sign
 * `/apl/order/add`, known by their SHA-256 thumbprint.
 */
export class OrderSendersService {
  constructor(private readonly database: Database) {}

  async trust(input: { certificate: string; name?: string | undefined }, caller: Caller): Promise<TOrderSender> {
    let description: ReturnType<typeof describeCertificate>;
    let pem: string;
    try {
      const leaf = parseCertificateBundle(input.certificate)[0]!;
      pem = leaf.pem;
      description = describeCertificate(leaf);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('orderSenderCertificateInvalid', { field: 'certificate', description: `certificate: ${error.message}` });
    }
    if (description.isCa || !description.keyUsage.includes('digitalSignature') || validityAt(pem, new Date()) !== 'valid') {
      throw new AppError('orderSenderCertificateInvalid', {
        field: 'certificate',
        description:
          'An order sender certificate must be a currently valid end-entity certificate with key usage digitalSignature',
      });
    }
    const row: OrderSenderRow = {
      fingerprint: certificateThumbprint(pem),
      name: input.name ?? description.subject,
      certificate_pem: pem,
      subject: description.subject,
      serial_number: description.serialNumber,
      not_after: description.notAfter.toISOString(),
      created_by: caller.username,
      created_at: isoNow(),
    };
    await this.database.transaction(async (trx) => {
      await new OrderSendersRepository(trx).replace(row);
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'orderSenderTrusted', row.fingerprint, {
        name: row.name,
        subject: row.subject,
      });
    });
    return toSender(row);
  }

  async list(): Promise<{ data: TOrderSender[] }> {
    return { data: await new OrderSendersRepository(this.database.db).list() };
  }

  async remove(fingerprint: string, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      if (!(await new OrderSendersRepository(trx).delete(fingerprint)))
        throw new AppError('orderSenderNotPresent', { field: 'fingerprint' });
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'orderSenderRemoved', fingerprint);
    });
  }
}
