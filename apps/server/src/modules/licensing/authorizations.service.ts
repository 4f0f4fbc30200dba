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
import { checkAuthorize, isSerialized, isUuid, targetIds, whyTakeRefused } from './authorize-checks.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import { LicensingChanges } from './licensing-changes.js';
import { listQueryOf, type OrderRecord, type Viewer } from './orders.repository.js';
import { RecipientsRepository } from './recipients.repository.js';
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

/** Why the order could not give `quantity` (as an error to hand to that request alone). */
async function refusal(changes: LicensingChanges, orderId: string, quantity: number, nowIso: string): Promise<Error> {
  const refused = new ErrorCollector();
  whyTakeRefused(await changes.orders.find(orderId), quantity, nowIso, refused);
  try {
    refused.throwIfAny();
  } catch (error) {
    return error as Error;
  }
  return new AppError('orderHasNoMoreQuantity', { field: 'quantity' });
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
   * (`AuthorizeBatchRepository`), elsewhere in one transaction with one multi-row insert per table. When
   * the order cannot give the sum, each request is taken alone in arrival order, so exactly those
   * the order can serve succeed and the others get the reason they would have got alone.
   */
  private async takeTogether(orderId: string, takes: Take[]): Promise<({ authorizationId: string } | Error)[]> {
    const serialized = isSerialized(takes[0]!.live);
    const nowIso = new Date().toISOString();
    if (this.database.dialect.kind === 'postgres') {
      let serialOffset = 0;
      const grants = takes.map((take) => {
        const grant = { take, serialFirst: null, authorizationId: randomUUID() };
        const rows = { ...grantRows(grant, nowIso), serialOffset };
        serialOffset += take.quantity;
        return { grant, rows };
      });
      const taken = await new AuthorizeBatchRepository(this.database.db).takeInOneStatement(
        orderId,
        grants.map(({ rows }) => rows),
        nowIso,
        serialized,
      );
      if (taken) return grants.map(({ grant }) => ({ authorizationId: grant.authorizationId }));
      if (takes.length === 1) return [await refusal(this.changes(), orderId, takes[0]!.quantity, nowIso)];
    }
    return this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      const total = takes.reduce((sum, take) => sum + take.quantity, 0);
      // on PostgreSQL the sum was just refused: each alone
      const together =
        this.database.dialect.kind === 'postgres'
          ? undefined
          : await changes.orders.takeQuantity(orderId, total, nowIso, serialized);
      const results: ({ authorizationId: string } | Error)[] = [];
      const granted: Grant[] = [];
      let next = together;
      for (const take of takes) {
        let serialFirst: number | null | undefined;
        if (together !== undefined) {
          serialFirst = next ?? null;
          if (next !== null && next !== undefined) next += take.quantity;
        } else {
          serialFirst =
            takes.length > 1 ? await changes.orders.takeQuantity(orderId, take.quantity, nowIso, serialized) : undefined;
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
