import type { Kysely } from 'kysely';
import type { TDeviceParameter, TQualityParameter } from '@manifold/contract';
import { parseCertificateBundle } from '../../crypto/certificates.js';
import { wrapContentKey } from '../../crypto/design-keys.js';
import { certificateThumbprint } from '../../crypto/jws.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { authorizationDocument, effectiveParameters } from './authorization-document.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import type { OrderRecord } from './orders.repository.js';
import { RecipientsRepository } from './recipients.repository.js';

/**
 * The authorization as signed XML for its recipient: every private design file's content key
 * is unwrapped with this server's encryption key and wrapped again for the recipient's
 * encryption certificate, so only that machine (or instance) can open the design.
 */
export class SignedAuthorizations {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly credentials: ServerCredentials,
    /** The canonical address handed to peers (server settings' `serverUrl`). */
    private readonly serverUrl: () => Promise<string>,
  ) {}

  async sign(order: OrderRecord, authorization: AuthorizationRecord): Promise<string> {
    const recipients = new RecipientsRepository(this.db);
    const device = authorization.device_id ? await recipients.findDevice(authorization.device_id) : undefined;
    const manage = authorization.manage_id ? await recipients.findManage(authorization.manage_id) : undefined;
    const recipientPem = device?.encryption_certificate ?? manage?.encryption_certificate ?? null;
    if (!recipientPem) {
      throw new AppError(authorization.device_id ? 'deviceIdNotValid' : 'manageIdNotValid', {
        field: authorization.device_id ? 'deviceId' : 'manageId',
        description: 'The recipient is no longer registered or has no encryption certificate',
      });
    }
    const recipient = parseCertificateBundle(recipientPem)[0]!.pem;
    const files = await recipients.revisionFiles(order.revision_id);
    // the keys are read once (one query): the signing identity for the issuer's serial and the
    // signature, the encryption key for every private file of the revision
    const { signing: signer, encryption } = await this.credentials.signingIdentityAndEncryptionKey();
    const contentKeys = await this.credentials.unwrapContentKeys(
      files.flatMap((file) => (file.wrapped_key ? [file.wrapped_key] : [])),
      encryption,
    );
    let next = 0;
    const wrapped = await Promise.all(
      files.map(async (file) => ({
        file,
        wrappedKey: file.wrapped_key ? await wrapContentKey(contentKeys[next++]!, recipient) : null,
      })),
    );
    const deviceParameters = effectiveParameters<TDeviceParameter>(
      [authorization.device_parameters, order.device_parameters, device ? device.parameters : []],
      (parameter) => parameter.parameterId,
    );
    const qualityParameters = effectiveParameters<TQualityParameter>(
      [authorization.quality_parameters, order.quality_parameters],
      (parameter) => parameter.id,
    );
    const xml = authorizationDocument({
      authorization,
      order,
      device,
      manageId: authorization.manage_id,
      issuer: { manageUrl: await this.serverUrl(), keySerialNumber: signer.serialNumber },
      recipientThumbprint: certificateThumbprint(recipient),
      files: wrapped,
      deviceParameters,
      qualityParameters,
    });
    return this.credentials.signXml(xml, signer);
  }
}
