import {
  replyRequests,
  services,
  type TCertificateChainRequest,
  type TCertificateChainResponse,
  type TReplyRequest,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import { CredentialsRepository, type KeyPurpose } from '../provision/credentials.repository.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';

const oneOf = <T extends string>(values: readonly T[], value: string): value is T =>
  (values as readonly string[]).includes(value);

/**
 * `POST /certificate/certificateChain` (spec §7, partner interface): a peer presents its chain,
 * which must end in one of our trust anchors; we answer our signing and/or encryption
 * certificate chains. This server holds one certificate set, answered whatever the caller's
 * `certificateType` (its service; default manage).
 */
export class CertificateExchangeService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
  ) {}

  async exchange(input: TCertificateChainRequest): Promise<TCertificateChainResponse> {
    const replyRequest = input.replyRequest?.trim() ?? '';
    if (!oneOf(replyRequests, replyRequest)) throw new AppError('replyRequestInvalid', { field: 'replyRequest' });
    const certificateType = input.certificateType?.trim() || 'manage';
    if (!oneOf(services, certificateType)) {
      throw new AppError('certificateTypeInvalid', {
        field: 'certificateType',
        description: 'certificateType must be manage, trace, enforce or protect',
      });
    }
    const chain = (input.certificate ?? []).filter((pem) => pem.trim() !== '');
    if (chain.length === 0) {
      throw new AppError('certificateExchangeMissingCertificate', {
        field: 'certificate',
        description: 'certificate must hold the caller’s certificate chain (PEM, leaf first)',
      });
    }

    const wanted = this.purposes(replyRequest);
    const repository = new CredentialsRepository(this.database.db);
    const ours = await Promise.all(wanted.map((purpose) => repository.certificate(purpose)));
    const missing = wanted.filter((_, index) => !ours[index]);
    if (missing.length > 0) {
      throw new AppError('certificateExchangeNotInitialized', {
        description: `This server has no ${missing.join(' and ')} certificate yet`,
      });
    }

    const verification = await this.credentials.verifyWithTrustAnchors(chain);
    if (!verification.valid) {
      throw new AppError('certificateExchangeChainVerifyFail', {
        field: 'certificate',
        description: `The caller's certificate chain does not verify (${verification.failure}): ${verification.description}`,
      });
    }

    const byPurpose = new Map(wanted.map((purpose, index) => [purpose, ours[index]!.certificate_pem]));
    return {
      signingCertificate: byPurpose.get('signing') ?? null,
      encryptionCertificate: byPurpose.get('encryption') ?? null,
    };
  }

  private purposes(replyRequest: TReplyRequest): KeyPurpose[] {
    return replyRequest === 'both' ? ['signing', 'encryption'] : [replyRequest];
  }
}
