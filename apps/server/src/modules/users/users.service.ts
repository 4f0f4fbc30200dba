import fs from 'node:fs/promises';
import path from 'node:path';
import type { TPage, TPageQuery, TRole, TUserAddRequest, TUserEditRequest, TUserProfile } from '@manifold/contract';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB, UserRow, UserRowUpdate } from '../../db/schema.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { generatePassword, hashPassword, verifyPassword } from '../../lib/passwords.js';
import { isoNow } from '../../lib/time.js';
import { AccessControlRepository } from '../access-control/access-control.repository.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { SessionsRepository } from '../session/sessions.repository.js';
import { checkNewPassword, checkProfileFields } from './user-rules.js';
import { normalizeUsername, usernameProblem } from './usernames.js';
import { UsersRepository, toUserProfile, usernameKey } from './users.repository.js';

export interface InitialAdmin {
  username: string;
  password: string | undefined;
  dataDir: string;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Where the generated password of the first administrator is kept until they change it. */
export function initialAdminPasswordFile(dataDir: string): string {
  return path.join(dataDir, 'initial-admin-password');
}

/**
 * The escalated-session check of a sensitive change (docs/security-keys-and-access.md), for the
 * changes a route's own row cannot tell apart: another user's password, e-mail, single sign-on
 * turned on or role, a new ADMIN, and those of one's own without a password to confirm them.
 */
export type SensitiveGuard = (caller: Caller) => Promise<void>;

/**
 * Whether a `user/edit` hands the account to whoever holds something new: a new password; a
 * different e-mail address or single sign-on turned on, which let an identity provider's user of
 * that name and address log in as it (docs/identity.md#accounts). The same e-mail again and single
 * sign-on turned off (which only ends sessions) hand nothing over.
 */
function handsOverAccount(input: TUserEditRequest, target: UserRow): boolean {
  const newEmail = input.email !== undefined && input.email.trim() !== target.email;
  const ssoTurnedOn = input.useSso === true && Number(target.use_sso) !== 1;
  return !!input.password || newEmail || ssoTurnedOn;
}

export class UsersService {
  constructor(
    private readonly database: Database,
    private readonly initial: InitialAdmin,
    private readonly log: Logger,
  ) {}

  private users(db: Transaction<DB> | Database['db'] = this.database.db): UsersRepository {
    return new UsersRepository(db, this.database.dialect);
  }

  list(page: TPageQuery, search?: string): Promise<TPage<TUserProfile>> {
    return this.users().list(page, search);
  }

  async add(input: TUserAddRequest, caller: Caller, guard?: SensitiveGuard): Promise<TUserProfile> {
    // a new administrator is as much power handed out as a promotion
    if (input.role === 'ADMIN') await guard?.(caller);
    const problems = new ErrorCollector();
    const username = normalizeUsername(input.username ?? '');
    const usernameToken = usernameProblem(username);
    if (usernameToken) problems.add(usernameToken, 'username');
    checkProfileFields(input, 'required', problems);
    const useSso = input.useSso ?? false;
    if (!input.password && !useSso) problems.add('userHasNoPassword', 'password');
    if (input.password) checkNewPassword(input.password, problems);
    problems.throwIfAny();

    if (await this.users().findByUsername(username)) throw new AppError('usernameTaken', { field: 'username' });
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const now = isoNow();
    try {
      return await this.database.transaction(async (trx) => {
        await this.requireStillAdmin(this.users(trx), caller);
        const id = await this.users(trx).insert({
          username,
          username_key: usernameKey(username),
          password_hash: passwordHash,
          first_name: input.firstName!.trim(),
          last_name: input.lastName!.trim(),
          email: input.email!.trim(),
          company: input.company?.trim() || null,
          role: input.role!,
          time_zone: input.timeZone!,
          language: input.language!,
          use_sso: useSso ? 1 : 0,
          created_at: now,
          updated_at: now,
        });
        await this.audit(trx, caller, 'userAdded', username, { role: input.role });
        return toUserProfile((await this.users(trx).findByUsername(username)) ?? this.missing(id));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('usernameTaken', { field: 'username' });
      throw error;
    }
  }

  async edit(input: TUserEditRequest, caller: Caller, guard?: SensitiveGuard): Promise<TUserProfile> {
    const username = input.username?.trim() ?? '';
    if (!username) throw new AppError('usernameEmpty', { field: 'username' });
    const target = await this.users().findByUsername(username);
    if (!target) throw new AppError('userNotPresent', { field: 'username' });
    const editingSelf = target.id === caller.userId;
    if (caller.role !== 'ADMIN' && !editingSelf) throw new AppError('userNotAuthorizedToEdit');
    const roleChange = input.role !== undefined && input.role !== target.role;
    if (roleChange && caller.role !== 'ADMIN') throw new AppError('userNotAuthorizedToPromoteRole', { field: 'role' });
    const newPassword = input.password ? input.password : undefined;
    const handsOver = handsOverAccount(input, target);
    // someone else's password, e-mail, single sign-on or role is their account: as sensitive as deleting it
    if (!editingSelf && (roleChange || handsOver)) await guard?.(caller);

    const problems = new ErrorCollector();
    checkProfileFields(input, 'ifGiven', problems);
    if (newPassword !== undefined) checkNewPassword(newPassword, problems);
    problems.throwIfAny();
    if (editingSelf && handsOver) await this.confirmOwnHandOver(target, input.currentPassword, caller, guard);

    const changes: UserRowUpdate = { updated_at: isoNow() };
    if (input.firstName !== undefined) changes.first_name = input.firstName.trim();
    if (input.lastName !== undefined) changes.last_name = input.lastName.trim();
    if (input.email !== undefined) changes.email = input.email.trim();
    if (input.company !== undefined) changes.company = input.company?.trim() || null;
    if (input.timeZone !== undefined) changes.time_zone = input.timeZone;
    if (input.language !== undefined) changes.language = input.language;
    if (input.useSso !== undefined) changes.use_sso = input.useSso ? 1 : 0;
    if (roleChange) changes.role = input.role;
    if (newPassword !== undefined) changes.password_hash = await hashPassword(newPassword);

    const profile = await this.database.transaction(async (trx) => {
      const users = this.users(trx);
      // what only an ADMIN may do: someone else's profile, anyone's role
      if (!editingSelf || roleChange) await this.requireStillAdmin(users, caller);
      if (roleChange && target.role === 'ADMIN') {
        const admins = await this.keepOneAdmin(users, target.id);
        await this.keepConstraintHolders(trx, target, admins, true);
      }
      await users.update(target.id, changes);
      const sessions = new SessionsRepository(trx);
      const now = isoNow();
      // single sign-on turned off ends the sessions its logins opened (a session does not say how
      // it began), as a new password ends those the old one opened
      const ssoTurnedOff = input.useSso === false && Number(target.use_sso) === 1;
      if (roleChange) {
        await sessions.revokeAllOfUser(target.id, now);
      } else if (newPassword !== undefined || ssoTurnedOff) {
        await sessions.revokeAllOfUser(target.id, now, editingSelf ? caller.sessionId : undefined);
      }
      const changed = Object.keys(changes).filter((key) => key !== 'updated_at' && key !== 'password_hash');
      await this.audit(trx, caller, 'userEdited', target.username, { changed });
      if (newPassword !== undefined) await this.audit(trx, caller, 'userPasswordChanged', target.username);
      if (roleChange) await this.audit(trx, caller, 'userRoleChanged', target.username, { from: target.role, to: input.role });
      return toUserProfile((await users.findByUsername(target.username)) ?? this.missing(target.id));
    });
    if (newPassword !== undefined) await this.forgetInitialPassword(target);
    return profile;
  }

  async delete(input: { username?: string | undefined }, caller: Caller): Promise<void> {
    const username = input.username?.trim() ?? '';
    if (!username) throw new AppError('usernameEmpty', { field: 'username' });
    await this.database.transaction(async (trx) => {
      const users = this.users(trx);
      await this.requireStillAdmin(users, caller);
      const target = await users.findByUsername(username);
      if (!target) throw new AppError('userNotPresent', { field: 'username' });
      const admins = target.role === 'ADMIN' ? await this.keepOneAdmin(users, target.id) : undefined;
      await this.keepConstraintHolders(trx, target, admins, false);
      await users.delete(target.id);
      await this.audit(trx, caller, 'userDeleted', target.username);
    });
  }

  roles(): TRole[] {
    return ['ADMIN', 'USER'];
  }

  /**
   * On an empty database: creates the first ADMIN. Without a configured password a random one
   * is generated, logged once and written to DATA_DIR/initial-admin-password (mode 0600), which
   * goes again when that administrator's password is changed ({@link forgetInitialPassword}).
   */
  async ensureInitialAdmin(): Promise<void> {
    const { initial, log } = this;
    if ((await this.users().count()) > 0) {
      await this.dropStaleInitialPassword();
      return;
    }
    const password = initial.password ?? generatePassword();
    const now = isoNow();
    try {
      await this.database.transaction(async (trx) => {
        await this.users(trx).insert({
          username: initial.username,
          username_key: usernameKey(initial.username),
          password_hash: await hashPassword(password),
          first_name: 'Site',
          last_name: 'Administrator',
          email: `${normalizeUsername(initial.username).toLowerCase()}@localhost`,
          company: null,
          role: 'ADMIN',
          time_zone: 'UTC',
          language: 'en_US',
          use_sso: 0,
          created_at: now,
          updated_at: now,
        });
        await new AuditRepository(trx, this.database.dialect).record({
          type: 'initialAdminCreated',
          actor: null,
          subject: initial.username,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) return; // another instance created it first
      throw error;
    }
    if (initial.password === undefined) {
      const file = initialAdminPasswordFile(initial.dataDir);
      await fs.mkdir(initial.dataDir, { recursive: true, mode: 0o700 });
      await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
      await fs.chmod(file, 0o600);
      log.warn(
        `Created the first administrator "${initial.username}" with the generated password ${password} ` +
          `(also written to ${file}); change it after logging in.`,
      );
    } else {
      log.info(`Created the first administrator "${initial.username}" with the configured ADMIN_PASSWORD.`);
    }
  }

  /**
   * After the first administrator's (ADMIN_USERNAME's) password changed — by themselves or by
   * another administrator — the generated one in DATA_DIR/initial-admin-password is no longer
   * theirs: the file goes, so no stale secret is left on disk. Called by `edit`, the one place a
   * password changes, once the change is committed: a file that cannot be removed is logged, not
   * answered as an error.
   */
  private async forgetInitialPassword(target: UserRow): Promise<void> {
    if (target.username_key !== usernameKey(this.initial.username)) return;
    await this.removeInitialPasswordFile("after the first administrator's password changed");
  }

  /**
   * Removes DATA_DIR/initial-admin-password when it is there (`why` it goes, for the log); a
   * failure is logged, not thrown.
   */
  private async removeInitialPasswordFile(why: string): Promise<void> {
    const file = initialAdminPasswordFile(this.initial.dataDir);
    try {
      await fs.rm(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`Could not remove ${file} ${why}: ${String(error)}`);
      return;
    }
    this.log.info(`Removed ${file} ${why}.`);
  }

  /**
   * At a start on a database that has users: a DATA_DIR/initial-admin-password left from before
   * (its administrator deleted, renamed away from ADMIN_USERNAME, or their password changed before
   * {@link forgetInitialPassword} existed, or on another instance's DATA_DIR) goes once it no
   * longer logs ADMIN_USERNAME in. A file that still does is kept: it is the way in it was made for.
   */
  private async dropStaleInitialPassword(): Promise<void> {
    const file = initialAdminPasswordFile(this.initial.dataDir);
    let kept: string;
    try {
      kept = (await fs.readFile(file, 'utf8')).trim();
    } catch {
      return; // none (or unreadable: nothing to judge)
    }
    const admin = await this.users().findByUsername(this.initial.username);
    if (admin?.password_hash && (await verifyPassword(admin.password_hash, kept))) return;
    await this.removeInitialPasswordFile(`as it no longer holds the password of "${this.initial.username}"`);
  }

  /**
   * One's own change that {@link handsOverAccount}: proven with the current password (420
   * `currentPasswordRequired`, `passwordIncorrect`); an account without one (single sign-on made
   * it) has nothing to prove it with, so it asks for the escalated session a sensitive action does
   * (403 `escalationRequired` from a caller who must escalate).
   */
  private async confirmOwnHandOver(
    target: UserRow,
    currentPassword: string | undefined,
    caller: Caller,
    guard: SensitiveGuard | undefined,
  ): Promise<void> {
    if (!target.password_hash) {
      await guard?.(caller);
      return;
    }
    if (!currentPassword) throw new AppError('currentPasswordRequired', { field: 'currentPassword' });
    if (!(await verifyPassword(target.password_hash, currentPassword))) {
      throw new AppError('passwordIncorrect', { field: 'currentPassword', description: 'The current password is incorrect' });
    }
  }

  /**
   * Inside the transaction of a change only an ADMIN may make: refuses it (403 `actionNotAllowed`,
   * as the role check does) when the caller is no longer an ADMIN — demoted or deleted after the
   * request passed its role check. The ADMIN rows stay locked until the transaction ends, so a
   * demotion of the caller commits either before (and is seen here) or after the change.
   */
  private async requireStillAdmin(users: UsersRepository, caller: Caller): Promise<void> {
    if (!(await users.lockAdmins()).includes(caller.userId)) throw new AppError('actionNotAllowed');
  }

  /**
   * Inside the transaction: refuses to remove `leavingId` from the ADMINs if it is the last one;
   * answers the ADMIN ids (locked until the transaction ends).
   */
  private async keepOneAdmin(users: UsersRepository, leavingId: number): Promise<number[]> {
    const admins = await users.lockAdmins();
    if (admins.filter((id) => id !== leavingId).length === 0) throw new AppError('userOnlyAdminInSystem');
    return admins;
  }

  /**
   * Inside the transaction, after {@link keepOneAdmin} when an ADMIN leaves (`admins`): refuses
   * (`accessControlWouldLockOut`, as the access controls' own lock-out guard) to delete or demote
   * (`demotion`) the last holder of a constraint an access role grants, which nobody could then
   * exercise — for `security-config`, nobody could change the access controls any more.
   */
  private async keepConstraintHolders(
    trx: Transaction<DB>,
    target: UserRow,
    admins: readonly number[] | undefined,
    demotion: boolean,
  ): Promise<void> {
    const orphaned = await new AccessControlRepository(trx).constraintsOnlyHeldBy(
      { id: target.id, admins, adminOnly: demotion },
      this.database.dialect,
    );
    if (orphaned.length === 0) return;
    throw new AppError('accessControlWouldLockOut', {
      description:
        `${target.username} is the last holder of ${orphaned.join(', ')} (the only ` +
        `${demotion ? 'ADMIN ' : ''}member of its access roles): add another member first`,
    });
  }

  private audit(
    trx: Transaction<DB>,
    caller: Caller,
    type: 'userAdded' | 'userEdited' | 'userDeleted' | 'userPasswordChanged' | 'userRoleChanged',
    subject: string,
    details?: Record<string, unknown>,
  ): Promise<void> {
    return new AuditRepository(trx, this.database.dialect).recordBy(caller, type, subject, details);
  }

  private missing(id: number): never {
    throw new Error(`user ${id} vanished inside its own transaction`);
  }
}
