import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  ZProtectApl,
  type TAplPeerRegistrationResponse,
  type TAplRegistrationRequest,
  type TPage,
  type TPageQuery,
  type TProtectInstance,
  type TRegistrationApproveRequest,
  type TRegistrationState,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import type { LicenceService } from '../licence/licence.service.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { checkPeerChain, parseApl, verifyAplSignature } from './apl-checks.js';
import { ProtectRegistrationsRepository, type ProtectRegistrationRow } from './protect-registrations.repository.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function toProtectInstance(row: ProtectRegistrationRow): TProtectInstance {
  return {
    id: row.id,
    version: row.version,
    protectId: row.token1,
    name: row.name,
    userId: row.user_id,
    fss: row.signing_certificate !== null,
    registrationState: row.registration_state as TRegistrationState,
    dateCreated: row.created_at,
  };
}

/**
 * Protect instances of design owners (docs/peer-network.md#protect-instances): an admin makes a
 * token pair and hands it over; the Protect posts a signed registration carrying the pair to
 * `/apl/registration/add` (aplType `protect`); an admin approves or rejects it here.
 */
export class ProtectRegistrationsService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
    private readonly licence: Pick<LicenceService, 'assertRoom'>,
  ) {}

  private registrations(): ProtectRegistrationsRepository {
    return new ProtectRegistrationsRepository(this.database.db);
  }

  async tokens(username: string): Promise<{ token1: string; token2: string }> {
    const token1 = randomBytes(18).toString('base64url');
    const token2 = randomBytes(32).toString('base64url');
    const now = isoNow();
    await this.registrations().insert({
      id: randomUUID(),
      token1,
      token2_sha256: sha256(token2),
      user_id: username,
      name: '',
      registration_state: 'Pending',
      signing_certificate: null,
      encryption_certificate: null,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    return { token1, token2 };
  }

  list(page: TPageQuery): Promise<TPage<TProtectInstance>> {
    return this.registrations().list(page, toProtectInstance);
  }

  /** `POST /apl/registration/add` with aplType protect. */
  async receive(input: TAplRegistrationRequest): Promise<TAplPeerRegistrationResponse> {
    const apl = parseApl(ZProtectApl, input.apl);
    const row = await this.registrations().findByToken1(apl.token1);
    const given = Buffer.from(sha256(apl.token2), 'hex');
    if (!row || !timingSafeEqual(given, Buffer.from(row.token2_sha256, 'hex'))) {
      throw new AppError('fssTokenNotFound', { field: 'apl.token1' });
    }
    const signing = await checkPeerChain(this.credentials, apl.signingCertificate, 'apl.signingCertificate');
    await checkPeerChain(this.credentials, apl.encryptionCertificate, 'apl.encryptionCertificate');
    await verifyAplSignature(input, signing);
    const values = {
      name: apl.name,
      signing_certificate: apl.signingCertificate.trim(),
      encryption_certificate: apl.encryptionCertificate.trim(),
    };
    await this.licence.assertRoom('peerInstances');
    if (!(await this.registrations().register(row.id, values, isoNow()))) {
      throw new AppError('registrationExchangeAlreadyRegistered', { field: 'apl.token1' });
    }
    return { registrationId: row.id, registrationState: row.registration_state as TRegistrationState };
  }

  async approve(input: TRegistrationApproveRequest): Promise<TProtectInstance> {
    const row = await this.registrations().find(input.id);
    if (!row) throw new AppError('registrationNotPresent', { field: 'id' });
    if (row.registration_state === 'Cancelled') throw new AppError('registrationHasBeenCanceled', { field: 'id' });
    if (row.signing_certificate === null) {
      throw new AppError('registrationNotPresent', {
        field: 'id',
        description: 'No Protect instance has registered with this token pair yet',
      });
    }
    const state: TRegistrationState = input.approve ? 'Approved' : 'Rejected';
    if (row.registration_state === state) {
      throw new AppError(input.approve ? 'registrationAlreadyApproved' : 'registrationAlreadyRejected', { field: 'approve' });
    }
    if (!(await this.registrations().changeState(row.id, row.registration_state, state, isoNow()))) {
      throw new AppError('registrationExchangeInvalidRegistration', {
        description: 'The registration changed at the same time; try again',
      });
    }
    return toProtectInstance((await this.registrations().find(row.id))!);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.registrations().delete(id))) throw new AppError('registrationNotPresent', { field: 'id' });
  }
}
