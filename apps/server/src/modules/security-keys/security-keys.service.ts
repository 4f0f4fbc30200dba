import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type {
  TAuthenticator,
  TAuthenticatorAddRequest,
  TEscalateLoginRequest,
  TEscalationPolicy,
  TPage,
  TPageQuery,
} from '@manifold/contract';
import type { WebAuthnConfig } from '../../config.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { lazyPackage } from '../../lib/lazy-package.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { SettingsRepository } from '../settings/settings.repository.js';
import { escalationNeeded, signedChallenge } from './escalation.js';
import { type ChallengePurpose, SecurityKeysRepository } from './security-keys.repository.js';

/** Settings key of "security key required for all administrators"; absent: `ESCALATION_REQUIRED_FOR_ADMINS`. */
export const ESCALATION_REQUIRED_FOR_ADMINS_KEY = 'security.escalationRequiredForAdmins';

const webauthn = lazyPackage<typeof SimpleWebAuthn>('@simplewebauthn/server');

/** COSE algorithms accepted for new keys: ES256, EdDSA, RS256. */
const supportedAlgorithmIDs = [-7, -8, -257];

function failure(error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError('authenticatorResponseInvalid', {
    description: `The security key answer could not be verified: ${reason}`,
  });
}

/**
 * Security keys (WebAuthn, `@simplewebauthn/server`) and the escalated session: registration and
 * assertion against challenges kept server-side (single use, expiring, bound to the session that
 * asked for them); a verified assertion escalates the session for `ESCALATION_SECONDS`.
 */
export class SecurityKeysService {
  constructor(
    private readonly database: Database,
    private readonly config: WebAuthnConfig,
    /** The brand (server settings), shown by authenticators unless `WEBAUTHN_RP_NAME` is set. */
    private readonly siteName: () => Promise<string>,
    private readonly settings: SettingsRepository,
  ) {}

  /**
   * Whether every ADMIN must escalate for sensitive actions: the administrator's setting, read
   * from the database on every check (every instance answers a change at once), else the
   * `ESCALATION_REQUIRED_FOR_ADMINS` default.
   */
  async escalationPolicy(): Promise<TEscalationPolicy> {
    const stored = await this.settings.get(ESCALATION_REQUIRED_FOR_ADMINS_KEY);
    return { requiredForAdmins: stored === undefined ? this.config.requiredForAdmins : stored === 'true' };
  }

  async setEscalationPolicy(input: TEscalationPolicy, caller: Caller): Promise<TEscalationPolicy> {
    await this.settings.set(ESCALATION_REQUIRED_FOR_ADMINS_KEY, String(input.requiredForAdmins));
    await this.audit().recordBy(caller, 'escalationPolicyChanged', String(input.requiredForAdmins), {
      requiredForAdmins: input.requiredForAdmins,
    });
    return this.escalationPolicy();
  }

  private keys(db: Kysely<DB> = this.database.db): SecurityKeysRepository {
    return new SecurityKeysRepository(db);
  }

  private audit(db: Kysely<DB> = this.database.db): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }

  /** Refuses (403 `escalationRequired`) a sensitive action from a caller who must escalate first. */
  async requireEscalation(caller: Caller): Promise<void> {
    if (caller.escalated) return;
    const hasSecurityKey = await this.keys().hasAny(caller.userId);
    const { requiredForAdmins } = caller.role === 'ADMIN' ? await this.escalationPolicy() : { requiredForAdmins: false };
    if (escalationNeeded({ role: caller.role, hasSecurityKey, requiredForAdmins })) {
      throw new AppError('escalationRequired');
    }
  }

  list(caller: Caller, page: TPageQuery): Promise<TPage<TAuthenticator>> {
    return this.keys().list(caller.userId, page);
  }

  /** Options for registering a key; a caller who already has one confirms with it first. */
  async attestationOptions(caller: Caller): Promise<Record<string, unknown> & { challenge: string }> {
    refuseApiToken(caller);
    await this.requireEscalationToAddKey(caller);
    const existing = await this.keys().ofUser(caller.userId);
    const options = await webauthn().generateRegistrationOptions({
      rpName: this.config.rpName ?? (await this.siteName()),
      rpID: this.config.rpId,
      userName: caller.username,
      userID: new TextEncoder().encode(`manifold-user-${caller.userId}`),
      attestationType: 'none',
      excludeCredentials: existing.map((key) => ({ id: key.credential_id, transports: splitTransports(key.transports) })),
      authenticatorSelection: { residentKey: 'discouraged', userVerification: 'preferred' },
      supportedAlgorithmIDs,
      timeout: this.config.challengeSeconds * 1000,
    });
    await this.remember(options.challenge, caller, 'attestation');
    return { ...options };
  }

  async add(input: TAuthenticatorAddRequest, caller: Caller): Promise<TAuthenticator> {
    refuseApiToken(caller);
    await this.requireEscalationToAddKey(caller);
    const challenge = await this.consume(input.credential.response.clientDataJSON, caller, 'attestation');
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await webauthn().verifyRegistrationResponse({
        response: input.credential as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        requireUserVerification: false,
        supportedAlgorithmIDs,
      });
    } catch (error) {
      throw failure(error);
    }
    if (!verified.verified) throw failure('not verified');
    const { credential } = verified.registrationInfo;
    const now = isoNow();
    try {
      return await this.database.transaction(async (trx) => {
        if (await this.keys(trx).credentialExists(credential.id)) throw new AppError('authenticatorAlreadyRegistered');
        const created = await this.keys(trx).insert({
          id: randomUUID(),
          user_id: caller.userId,
          credential_id: credential.id,
          public_key: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: (credential.transports ?? []).join(','),
          name: input.name,
          created_at: now,
          last_used_at: null,
        });
        await this.audit(trx).recordBy(caller, 'authenticatorAdded', caller.username, {
          authenticatorId: created.authenticatorId,
          name: input.name,
        });
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('authenticatorAlreadyRegistered');
      throw error;
    }
  }

  async delete(input: { authenticatorId: string }, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const found = await this.keys(trx).findOwn(caller.userId, input.authenticatorId);
      if (!found) throw new AppError('authenticatorNotPresent', { field: 'authenticatorId' });
      await this.keys(trx).delete(found.id);
      await this.audit(trx).recordBy(caller, 'authenticatorDeleted', caller.username, {
        authenticatorId: found.id,
        name: found.name,
      });
    });
  }

  /** Options for confirming with one of the caller's keys. */
  async assertionOptions(caller: Caller): Promise<Record<string, unknown> & { challenge: string }> {
    refuseApiToken(caller);
    const keys = await this.keys().ofUser(caller.userId);
    if (keys.length === 0) {
      throw new AppError('authenticatorNotPresent', { description: 'You have no security key; add one on your profile first' });
    }
    const options = await webauthn().generateAuthenticationOptions({
      rpID: this.config.rpId,
      allowCredentials: keys.map((key) => ({ id: key.credential_id, transports: splitTransports(key.transports) })),
      userVerification: 'preferred',
      timeout: this.config.challengeSeconds * 1000,
    });
    await this.remember(options.challenge, caller, 'assertion');
    return { ...options };
  }

  /** Verifies an assertion and marks the session escalated until `ESCALATION_SECONDS` from now. */
  async escalate(input: TEscalateLoginRequest, caller: Caller): Promise<{ escalated: true; escalatedUntil: string }> {
    refuseApiToken(caller);
    try {
      const challenge = await this.consume(input.credential.response.clientDataJSON, caller, 'assertion');
      const found = await this.keys().findOwnByCredential(caller.userId, input.credential.id);
      // exact match: MySQL's default collation would also find an id differing in case
      const key = found?.credential_id === input.credential.id ? found : undefined;
      if (!key) throw new AppError('authenticatorNotPresent', { description: 'This security key is not registered to you' });
      const previous = Number(key.counter);
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await webauthn().verifyAuthenticationResponse({
          response: input.credential as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: this.config.origins,
          expectedRPID: this.config.rpId,
          credential: {
            id: key.credential_id,
            publicKey: Buffer.from(key.public_key, 'base64url'),
            counter: previous,
            transports: splitTransports(key.transports),
          },
          requireUserVerification: false,
        });
      } catch (error) {
        throw failure(error);
      }
      if (!verified.verified) throw failure('not verified');
      const until = new Date(Date.now() + this.config.escalationSeconds * 1000).toISOString();
      await this.database.transaction(async (trx) => {
        const now = isoNow();
        if (!(await this.keys(trx).advanceCounter(key.id, previous, verified.authenticationInfo.newCounter, now))) {
          throw failure('the signature counter was used meanwhile');
        }
        await this.keys(trx).escalateSession(caller.sessionId, until);
        await this.audit(trx).recordBy(caller, 'sessionEscalated', caller.username, {
          authenticatorId: key.id,
          escalatedUntil: until,
        });
      });
      return { escalated: true, escalatedUntil: until };
    } catch (error) {
      if (error instanceof AppError) {
        await this.audit().recordBy(caller, 'escalationFailed', caller.username, { errorToken: error.token });
      }
      throw error;
    }
  }

  /** Adding a further key needs the confirmation of one already held (else a stolen session could add its own). */
  private async requireEscalationToAddKey(caller: Caller): Promise<void> {
    if (!caller.escalated && (await this.keys().hasAny(caller.userId))) throw new AppError('escalationRequired');
  }

  private async remember(challenge: string, caller: Caller, purpose: ChallengePurpose): Promise<void> {
    const now = new Date();
    const keys = this.keys();
    await keys.purgeExpiredChallenges(now.toISOString());
    await keys.saveChallenge(challenge, {
      user_id: caller.userId,
      session_id: caller.sessionId,
      purpose,
      expires_at: new Date(now.getTime() + this.config.challengeSeconds * 1000).toISOString(),
    });
  }

  /** The challenge the browser signed, taken (single use) when this session asked for it and it is live. */
  private async consume(clientDataJSON: string, caller: Caller, purpose: ChallengePurpose): Promise<string> {
    const challenge = signedChallenge(clientDataJSON);
    if (!challenge || !(await this.keys().consumeChallenge(challenge, caller.userId, caller.sessionId, purpose, isoNow()))) {
      throw new AppError('authenticatorChallengeInvalid');
    }
    return challenge;
  }
}

/**
 * Security keys are registered and used by a person in a browser session: an API token (an OAuth
 * client's or a trusted issuer's, `caller.via`) has no session to escalate and must not add a key
 * to the account it acts for (a key planted there would hold that account's sensitive actions).
 */
function refuseApiToken(caller: Caller): void {
  if (caller.via) {
    throw new AppError('actionNotAllowed', { description: 'An API token cannot register or use security keys' });
  }
}

function splitTransports(text: string): ('ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb')[] {
  return text ? (text.split(',') as ('ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb')[]) : [];
}
