import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type {
  TAuthorization,
  TAuthorizationListQuery,
  TAuthorizeRequest,
  TDtl,
  TEnforceOrder,
  TPage,
  TPageQuery,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { AppError, AppErrors, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { KeyedBatches } from '../../lib/keyed-batches.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository } from '../users/users.repository.js';
import { checkAuthorize, checkTarget, isSerialized, isUuid, targetIds, whyTakeRefused } from './authorize-checks.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import { LicensingChanges } from './licensing-changes.js';
import { listQueryOf, type OrderRecord, type Viewer } from './orders.repository.js';
import { type AuthorizeTargets, RecipientsRepository } from './recipients.repository.js';
import { AuthorizeBatchRepository, type GrantRows } from './authorize-batch.repository.js';
import type { SignedAuthorizations } from './signed-authorization.js';

/** An authorize request that passed every rule, waiting for its order's quantity. */
interface Take {
  input: TAuthorizeRequest;
  caller: Caller;
  live: OrderRecord;
  quantity: number;
  expiresAt: string | null;
  device: Awaited<ReturnType<RecipientsRepository['findDevice']>>;
  manage: Awaited<ReturnType<RecipientsRepository['findManage']>>;
}

/** A take the order gave: its authorization's id and first serial number (null when the order has none). */
interface Grant {
  take: Take;
  serialFirst: number | null;
  authorizationId: string;
}

/**
 * The rows of a granted authorization — itself, what it refers to, its audit entry — its serial
 * numbers aside (`serialFirst` is in the audit entry; the caller puts them into the row).
 */
function grantRows({ take, serialFirst, authorizationId }: Grant, nowIso: string): Omit<GrantRows, 'serialOffset'> {
  const { input, caller, live, quantity, expiresAt, device, manage } = take;
  const referrer = { kind: 'authorization', id: authorizationId } as const;
  return {
    authorization: {
      id: authorizationId,
      order_id: live.id,
      version: 1,
      target_kind: device ? 'device' : 'manage',
      device_id: device?.id ?? null,
      manage_id: manage?.id ?? null,
      quantity,
      state: 'authorized',
      expires_at: expiresAt,
      authorized_users: input.authorizedUserList,
      tracking: input.tracking,
      device_parameters: input.deviceParameters,
      quality_parameters: input.qualityParameters,
      dsi_id: live.dsi_id,
      company_name: live.company_name,
      user_id: live.user_id,
      archived: live.archived,
      downstream_device_id: null,
      created_by: caller.username,
      created_at: nowIso,
      sent_at: null,
      received_at: null,
      revoked_at: null,
      updated_at: nowIso,
    },
    references: [
      ...(device ? [{ target: { kind: 'device', id: device.id } as const, referrer, expiresAt }] : []),
      { target: { kind: 'package', id: live.dsi_id } as const, referrer, expiresAt },
    ],
    audit: {
      actor: caller.username,
      sourceIp: caller.sourceIp,
      subject: live.id,
      details: {
        authorizationId,
        quantity,
        target: device ? { deviceId: device.id } : { manageId: manage?.id },
        serialFirst,
        expiration: expiresAt,
      },
    },
  };
}

function sumOf(takes: Take[]): number {
  return takes.reduce((sum, take) => sum + take.quantity, 0);
}

/** The machines and Manage instances of the takes, each once. */
function targetsOf(takes: Take[]): AuthorizeTargets {
  return {
    deviceIds: [...new Set(takes.flatMap((take) => take.device?.id ?? []))],
    manageIds: [...new Set(takes.flatMap((take) => take.manage?.id ?? []))],
  };
}

/** The error `act` throws, or undefined when it throws none. */
function thrownBy(act: () => void): Error | undefined {
  try {
    act();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

/** Why the order could not give `quantity` (as an error to hand to that request alone). */
async function refusal(changes: LicensingChanges, orderId: string, quantity: number, nowIso: string): Promise<Error> {
  const refused = new ErrorCollector();
  whyTakeRefused(await changes.orders.find(orderId), quantity, nowIso, refused);
  return thrownBy(() => refused.throwIfAny()) ?? new AppError('orderHasNoMoreQuantity', { field: 'quantity' });
}

/**
 * Authorizations: parts of an order handed to one machine or one downstream Manage instance
 * under every rule of the licence chain (`authorize-checks.ts`), then revoked, listed and
 * downloaded as signed XML (sending: `AuthorizationDeliveryService`). Quantity and serial numbers
 * are taken by one conditional UPDATE, so concurrent requests on any number of server instances
 * never hand out more than the order holds.
 */
export class AuthorizationsService {
  private readonly takes = new KeyedBatches<Take, { authorizationId: string }>((orderId, takes) =>
    this.takeTogether(orderId, takes),
  );

  constructor(
    private readonly database: Database,
    private readonly signed: SignedAuthorizations,
  ) {}

  private changes(db: Kysely<DB> = this.database.db): LicensingChanges {
    return new LicensingChanges(db, this.database.dialect);
  }

  async authorize(input: TAuthorizeRequest, caller: Caller): Promise<{ authorizationId: string }> {
    try {
      return await this.tryAuthorize(input, caller);
    } catch (error) {
      if (error instanceof AppError || error instanceof AppErrors) {
        const tokens = error instanceof AppError ? [error.token] : error.errors.map((e) => e.token);
        const orderId = input.orderId && isUuid(input.orderId) ? input.orderId : null;
        await new AuditRepository(this.database.db, this.database.dialect).record({
          type: 'licenceAuthorizationFailed',
          actor: caller.username,
          subject: orderId,
          sourceIp: caller.sourceIp,
          details: {
            tokens,
            deviceId: input.deviceId ?? null,
            manageId: input.manageId ?? null,
            quantity: input.quantity ?? null,
          },
        });
      }
      throw error;
    }
  }

  /** Reads what the rules need: the order, the target and the listed users. */
  private async facts(input: TAuthorizeRequest, caller: Caller) {
    const orders = this.changes().orders;
    const recipients = new RecipientsRepository(this.database.db);
    const { deviceId, manageId } = targetIds(input);
    const users = new UsersRepository(this.database.db, this.database.dialect);
    // independent reads: on a pool (PostgreSQL, MariaDB) they go out at once
    const [order, device, manage, knownUsers] = await Promise.all([
      input.orderId && isUuid(input.orderId) ? orders.findVisible(input.orderId, caller) : undefined,
      deviceId !== undefined && manageId === undefined && isUuid(deviceId) ? recipients.findDevice(deviceId) : undefined,
      manageId !== undefined && deviceId === undefined && isUuid(manageId) ? recipients.findManage(manageId) : undefined,
      users.findIdsByUsernames(input.authorizedUserList).then((found) => new Set(found.keys())),
    ]);
    return { input, now: new Date(), order, device, manage, knownUsers };
  }

  private async tryAuthorize(input: TAuthorizeRequest, caller: Caller): Promise<{ authorizationId: string }> {
    const facts = await this.facts(input, caller);
    const { problems, live, expiresAt } = checkAuthorize(facts);
    problems.throwIfAny();
    const quantity = input.quantity;
    if (!live || !quantity) throw new Error('unreachable: a valid request has an order and a quantity');
    // every rule is checked above, outside any transaction; what is left (take the quantity,
    // write the rows) runs for this order together with the requests that arrive meanwhile
    return this.takes.submit(live.id, { input, caller, live, quantity, expiresAt, device: facts.device, manage: facts.manage });
  }

  /**
   * The authorize requests of one order that arrived together, taken at once: one conditional
   * UPDATE takes their summed quantity (and as many serial numbers, handed out in arrival order)
   * and their rows are written with it — on PostgreSQL in that same statement
   * (`AuthorizeBatchRepository`), elsewhere in one transaction with one multi-row insert per table.
   * Their machines and Manage instances are checked again by that write, and kept so until it
   * commits — PostgreSQL: in the statement, `FOR SHARE`; MariaDB: read `LOCK IN SHARE MODE` first
   * in the transaction; SQLite: in the conditional UPDATE, whose write lock no other writer shares
   * — so a machine's (or instance's) delete, which locks its row before it looks for the
   * authorizations naming it, either sees these or comes first. A request whose target was
   * deleted, rejected or disabled since its rules were checked gets the token the rules give it
   * now (`deviceIdNotValid`, `deviceNotApproved`, `manageIdNotValid`, `manageInstaceNotApproved`)
   * and the others go on. When the order cannot give the sum, each request is taken alone in
   * arrival order, so exactly those the order can serve succeed and the others get the reason they
   * would have got alone.
   */
  private async takeTogether(orderId: string, takes: Take[]): Promise<({ authorizationId: string } | Error)[]> {
    const serialized = isSerialized(takes[0]!.live);
    const nowIso = new Date().toISOString();
    // PostgreSQL's statement refused the sum of every take with all their targets held
    let sumRefused = false;
    if (this.database.dialect.kind === 'postgres') {
      let serialOffset = 0;
      const grants = takes.map((take) => {
        const grant = { take, serialFirst: null, authorizationId: randomUUID() };
        const rows = { ...grantRows(grant, nowIso), serialOffset };
        serialOffset += take.quantity;
        return { grant, rows };
      });
      const { taken, targetsHeld } = await new AuthorizeBatchRepository(this.database.db).takeInOneStatement(
        orderId,
        grants.map(({ rows }) => rows),
        nowIso,
        serialized,
      );
      if (taken) return grants.map(({ grant }) => ({ authorizationId: grant.authorizationId }));
      if (targetsHeld && takes.length === 1) return [await refusal(this.changes(), orderId, takes[0]!.quantity, nowIso)];
      sumRefused = targetsHeld;
    }
    const sqlite = this.database.dialect.kind === 'sqlite';
    return this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      // SQLite: the first statement writes, so that it waits for another process's writer
      // (busy_timeout) rather than failing to write after a read whose snapshot went stale; it
      // checks the targets itself, and no other writer runs until this transaction ends
      let together = sqlite
        ? await changes.orders.takeQuantity(orderId, sumOf(takes), nowIso, serialized, targetsOf(takes))
        : undefined;
      const targetRefused = together === undefined ? await this.targetRefusals(trx, takes) : [];
      const open = takes.filter((_, i) => targetRefused[i] === undefined);
      // the sum of them all was refused with every target held (PostgreSQL's statement, SQLite's
      // first update): not again
      const sumTried = (sqlite || sumRefused) && open.length === takes.length;
      if (together === undefined && open.length > 0 && !sumTried)
        together = await changes.orders.takeQuantity(orderId, sumOf(open), nowIso, serialized);
      const results: ({ authorizationId: string } | Error)[] = [];
      const granted: Grant[] = [];
      let next = together;
      for (const [i, take] of takes.entries()) {
        const refused = targetRefused[i];
        if (refused !== undefined) {
          results.push(refused);
          continue;
        }
        let serialFirst: number | null | undefined;
        if (together !== undefined) {
          serialFirst = next ?? null;
          if (next !== null && next !== undefined) next += take.quantity;
        } else {
          // the sum was refused: each alone (one alone was that sum)
          serialFirst =
            open.length > 1 ? await changes.orders.takeQuantity(orderId, take.quantity, nowIso, serialized) : undefined;
          if (serialFirst === undefined) {
            results.push(await refusal(changes, orderId, take.quantity, nowIso));
            continue;
          }
        }
        const grant = { take, serialFirst, authorizationId: randomUUID() };
        granted.push(grant);
        results.push({ authorizationId: grant.authorizationId });
      }
      const rows = granted.map((grant) => grantRows(grant, nowIso));
      await changes.authorizations.insert(
        rows.map(({ authorization }, i) => {
          const { serialFirst } = granted[i]!;
          const serialLast = serialFirst === null ? null : serialFirst + authorization.quantity - 1;
          return { ...authorization, serial_first: serialFirst, serial_last: serialLast };
        }),
      );
      await changes.references.insert(rows.flatMap((row) => row.references));
      await changes.auditMany(
        rows.map(({ audit }) => ({
          actor: { username: audit.actor, sourceIp: audit.sourceIp },
          type: 'licenceAuthorized' as const,
          orderId: audit.subject,
          details: audit.details,
        })),
      );
      return results;
    });
  }

  /**
   * The takes' machines and Manage instances read again in the batch's transaction `trx`, locked
   * shared until it ends (`Dialect.forShare`; on SQLite called only once the transaction writes,
   * so no other writer runs): per take, the refusal the target rules give now (a machine deleted,
   * rejected or disabled since the take's rules were checked), or undefined when its target still
   * qualifies.
   */
  private async targetRefusals(trx: Kysely<DB>, takes: Take[]): Promise<(Error | undefined)[]> {
    const recipients = new RecipientsRepository(trx);
    const dialect = this.database.dialect;
    const { deviceIds, manageIds } = targetsOf(takes);
    const devices = await recipients.findDevices(deviceIds, dialect);
    const manages = await recipients.findManages(manageIds, dialect);
    return takes.map((take) => {
      const problems = new ErrorCollector();
      const device = take.device ? devices.get(take.device.id) : undefined;
      const manage = take.manage ? manages.get(take.manage.id) : undefined;
      checkTarget({ input: take.input, device, manage }, take.live, problems);
      return thrownBy(() => problems.throwIfAny());
    });
  }

  list(query: TAuthorizationListQuery, viewer: Viewer): Promise<TPage<TAuthorization>> {
    const { filters, sort } = listQueryOf(query);
    return this.changes().authorizations.list(
      { ...filters, orderId: query.orderId, authorizationId: query.authorizationId },
      sort,
      query,
      viewer,
    );
  }

  async revoke(input: { orderId: string; authorizationId: string }, caller: Caller): Promise<TAuthorization> {
    await this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      const { order } = await orderAndAuthorization(changes, input.orderId, input.authorizationId, caller);
      await changes.orders.lock(order.id);
      const authorization = await changes.authorizations.find(input.authorizationId);
      await changes.revokeAuthorization(authorization!, caller);
    });
    return (await this.changes().authorizations.inOrder([input.authorizationId]))[0]!;
  }

  /** `authorization/download`: the signed XML of an authorization that is not revoked. */
  async download(input: { orderId: string; authorizationId: string }, caller: Caller): Promise<string> {
    const changes = this.changes();
    const { order, authorization } = await orderAndAuthorization(changes, input.orderId, input.authorizationId, caller);
    if (authorization!.state === 'revoked') throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    const xml = await this.signed.sign(order, authorization!);
    await changes.audit(caller, 'licenceDownloaded', order.id, { authorizationId: authorization!.id });
    return xml;
  }

  /**
   * `enforce/order/list`: what was handed to machines (Enforce) — authorizations to a machine
   * that were sent — with their state (sent, received, revoked), newest first.
   */
  enforceList(
    query: TPageQuery & { deviceId?: string | undefined; state?: TAuthorization['state'] | undefined },
    viewer: Viewer,
  ): Promise<TPage<TEnforceOrder>> {
    return this.changes().authorizations.enforceList(query, viewer);
  }

  /** `dtl/list`: machine data licences, newest first (a USER: those of the orders of their groups). */
  dtlList(
    query: TPageQuery & { deviceId?: string | undefined; orderId?: string | undefined },
    viewer: Viewer,
  ): Promise<TPage<TDtl>> {
    return this.changes().authorizations.dtlList(query, viewer);
  }
}

/** The order (visible to the caller) and, when asked for, one of its authorizations. */
export async function orderAndAuthorization(
  changes: LicensingChanges,
  orderId: string,
  authorizationId: string | null | undefined,
  viewer: Viewer,
): Promise<{ order: OrderRecord; authorization: AuthorizationRecord | undefined }> {
  const order = await changes.orders.findVisible(orderId, viewer);
  if (!order) throw new AppError('orderIdNotValid', { field: 'orderId' });
  if (!authorizationId) return { order, authorization: undefined };
  const authorization = await changes.authorizations.find(authorizationId);
  if (!authorization || authorization.order_id !== order.id)
    throw new AppError('invalidOrderAndAuthorizationIdCombination', { field: 'authorizationId' });
  return { order, authorization };
}
