import { AppError } from '../../lib/app-error.js';
import type { Database } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import type { IdentityProviderRow } from '../../db/schema-identity.js';
import { isDeadlock, isUniqueViolation } from '../../db/dialect.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository, usernameKey } from '../users/users.repository.js';
import { normalizeUsername, usernameProblem } from '../users/usernames.js';
import { IdentityRepository } from './identity.repository.js';
import { emailDomainAllowed, usernameFromClaims } from './identity-rules.js';

/** What a provider vouched for, whatever the protocol. */
export interface ExternalIdentity {
  /** The issuer (OIDC `iss`, SAML Issuer): with `subject` the stable key of the link. */
  issuer: string;
  subject: string;
  email?: string | undefined;
  preferredUsername?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/**
 * The local account of an external identity (docs/identity.md#accounts):
 *
 * 1. a user already linked to (issuer, subject) is that user;
 * 2. otherwise, a local user with the derived username exists: linked only when an
 *    administrator has set `useSso` on that account and its e-mail address is the one the
 *    provider asserts; refused (`ssoAccountNotLinked`) otherwise — never a silent merge;
 * 3. otherwise the provider may create accounts (`allowCreate`): a new user with the provider's
 *    default role, `useSso` set and no password; refused (`ssoUserNotAllowed`) otherwise.
 *
 * The provider's e-mail domain list applies to every case.
 *
 * First logins that race (the same subject, or the same new name) end as they would one after
 * the other: the one whose link or account is written first wins, and the others, whose insert
 * broke a unique key once the winner committed, look again and find the winner's link or account
 * (never a 500, and the account is linked once).
 */
export async function resolveSsoAccount(
  database: Database,
  provider: IdentityProviderRow,
  identity: ExternalIdentity,
  sourceIp: string,
): Promise<UserRow> {
  for (let attempt = 1; ; attempt += 1) {
    const account = await resolveOnce(database, provider, identity, sourceIp, attempt === 3);
    if (account !== lostRace) return account;
  }
}

/** A first login wrote nothing because a concurrent one wrote the same link or name first. */
const lostRace = Symbol('lostRace');

async function resolveOnce(
  database: Database,
  provider: IdentityProviderRow,
  identity: ExternalIdentity,
  sourceIp: string,
  lastAttempt: boolean,
): Promise<UserRow | typeof lostRace> {
  const refuse = async (token: 'ssoUserNotAllowed' | 'ssoAccountNotLinked', reason: string): Promise<never> => {
    await new AuditRepository(database.db, database.dialect).record({
      type: 'ssoLoginRefused',
      actor: (identity.preferredUsername ?? identity.subject).slice(0, 128),
      subject: provider.name,
      details: { reason, issuer: identity.issuer },
      sourceIp,
    });
    throw new AppError(token);
  };
  if (!emailDomainAllowed(identity.email, provider.allowed_domains)) {
    return refuse('ssoUserNotAllowed', 'e-mail domain not allowed');
  }
  const identities = new IdentityRepository(database.db);
  const linkedId = await identities.findLinkedUserId(identity.issuer, identity.subject);
  if (linkedId === 'collision') {
    return refuse('ssoAccountNotLinked', 'the database took a linked subject that is not exactly this one for it');
  }
  if (linkedId !== undefined) {
    const linked = await identities.findUser(linkedId);
    if (linked && Number(linked.use_sso) === 1) return linked;
    return refuse('ssoUserNotAllowed', 'single sign-on is turned off for this account');
  }
  const username = normalizeUsername(usernameFromClaims({ ...identity }));
  if (!username || usernameProblem(username)) return refuse('ssoUserNotAllowed', 'no usable username');
  const users = new UsersRepository(database.db, database.dialect);
  const existing = await users.findByUsername(username);
  if (existing) {
    const optedIn =
      Number(existing.use_sso) === 1 && !!identity.email && existing.email.toLowerCase() === identity.email.toLowerCase();
    if (!optedIn) return refuse('ssoAccountNotLinked', 'a local account of that name is not set up for single sign-on');
    try {
      await database.transaction(async (trx) => {
        await new IdentityRepository(trx).link(identity.issuer, identity.subject, existing.id, isoNow());
      });
    } catch (error) {
      // a concurrent first login linked this subject first: the next look finds its link (a
      // deadlock rolled this transaction back whole: looking again is as safe)
      if (!isUniqueViolation(error) && !isDeadlock(error)) throw error;
      if (lastAttempt) return refuse('ssoAccountNotLinked', 'the account was linked concurrently');
      return lostRace;
    }
    return existing;
  }
  if (Number(provider.allow_create) !== 1) return refuse('ssoUserNotAllowed', 'no account and the provider may not create one');
  if (!identity.email) return refuse('ssoUserNotAllowed', 'the provider gave no e-mail address');
  try {
    return await database.transaction(async (trx) => {
      const now = isoNow();
      const id = await new UsersRepository(trx, database.dialect).insert({
        username,
        username_key: usernameKey(username),
        password_hash: null,
        first_name: (identity.firstName ?? '').slice(0, 128),
        last_name: (identity.lastName ?? '').slice(0, 128),
        email: identity.email!.slice(0, 254),
        company: null,
        role: provider.default_role,
        time_zone: 'UTC',
        language: 'en_US',
        use_sso: 1,
        created_at: now,
        updated_at: now,
      });
      const identityRepository = new IdentityRepository(trx);
      await identityRepository.link(identity.issuer, identity.subject, id, now);
      await new AuditRepository(trx, database.dialect).record({
        type: 'ssoUserCreated',
        actor: username,
        subject: username,
        details: { provider: provider.name, issuer: identity.issuer, role: provider.default_role },
        sourceIp,
      });
      return (await identityRepository.findUser(id))!;
    });
  } catch (error) {
    // a concurrent first login of the same subject or name committed first: the next look finds
    // its link or its account, as a later login would
    if (!isUniqueViolation(error) && !isDeadlock(error)) throw error;
    if (lastAttempt) return refuse('ssoAccountNotLinked', 'the account was created concurrently');
    return lostRace;
  }
}
