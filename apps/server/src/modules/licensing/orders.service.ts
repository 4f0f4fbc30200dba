import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import type { Kysely } from 'kysely';
import type { TOrder, TOrderDetail, TOrderFetchQuery, TOrderListQuery, TPage } from '@manifold/contract';
import { validityAt } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { OrderSenderRow } from '../../db/schema-licensing.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { type Actor, LicensingChanges } from './licensing-changes.js';
import { OrderSendersRepository } from './order-senders.repository.js';
import { listQueryOf, type NewOrder, type OrderRecord, toOrder, type Viewer } from './orders.repository.js';
import { checkPolicy, POLICY_FIELD } from './policy-check.js';

/** How many authorizations an order detail shows when no page is asked for. */
export const ORDER_DETAIL_PAGE_SIZE = 10;
/** The newest audit records `order/fetch` carries; the audit list (subject = the order's id) holds them all. */
export const ORDER_HISTORY_SIZE = 50;

export type OrderOrigin =
  | { source: 'ui' | 'upload'; caller: Caller }
  | { source: 'partner'; sender: OrderSenderRow; sourceIp: string }
  /** A registered Protect (`/fss/order`): `actor` names it (`protect:<protectId>`). */
  | { source: 'protect'; actor: string; sourceIp: string };

function actorOf(origin: OrderOrigin): Actor {
  if (origin.source === 'partner') return { username: `sender:${origin.sender.name}`, sourceIp: origin.sourceIp };
  if (origin.source === 'protect') return { username: origin.actor, sourceIp: origin.sourceIp };
  return { username: origin.caller.username, sourceIp: origin.caller.sourceIp };
}

/**
 * Orders: received as an authorized policy list (console, upload, or signed by a trusted sender),
 * checked, mapped to a design revision built here, and then listed, archived, restored, grouped
 * and revoked. A USER sees and acts on the orders of their groups only; an order a USER adds is
 * shared with that user's groups.
 */
export class OrdersService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
  ) {}

  private changes(db: Kysely<DB> = this.database.db): LicensingChanges {
    return new LicensingChanges(db, this.database.dialect);
  }

  /** Serial numbers of this server's installed certificates: what a licensee key must be. */
  private async ownSerials(): Promise<string[]> {
    const serials: string[] = [];
    for (const purpose of ['signing', 'encryption'] as const) {
      try {
        serials.push(await this.credentials.certificateSerial(purpose));
      } catch (error) {
        if (!(error instanceof AppError && error.token === 'provisionNotInitialized')) throw error;
      }
    }
    return serials;
  }

  async add(input: unknown, origin: OrderOrigin): Promise<{ orderId: string }> {
    const { policy, licenseeKeySN, issuerKeySN, licensorKeySN } = checkPolicy(input, await this.ownSerials(), new Date());
    const revision = await this.changes().orders.findRevision(policy.design.dsiId, policy.design.dsiVersion);
    if (!revision || revision.digest !== policy.design.digestValue.toLowerCase()) {
      throw new AppError('orderNotMappable', {
        field: `${POLICY_FIELD}.design`,
        description: revision
          ? 'The digest does not match the manifest of that design revision'
          : 'No design revision with this dsiId and dsiVersion was built on this server',
      });
    }
    const sourceKey = policy.sourceCompanyName.toLowerCase();
    const actor = actorOf(origin);
    const now = isoNow();
    const id = randomUUID();
    const serialization = policy.serialization;
    const row: NewOrder = {
      id,
      order_number: policy.orderNumber,
      dedupe_key: `${sourceKey}|${policy.orderNumber}`,
      upstream_authorization_id: policy.authorizationId ?? null,
      version: 1,
      company_name: policy.companyName,
      source_company_name: policy.sourceCompanyName,
      source_date_created: policy.sourceDateCreated ?? null,
      source: origin.source,
      manage_user_id: 'caller' in origin ? origin.caller.userId : null,
      user_id: actor.username,
      dsi_id: revision.package_id,
      revision_id: revision.id,
      dsi_version: revision.dsi_version,
      design_name: revision.design_name,
      digest_value: revision.digest,
      quantity: policy.quantity,
      allocated: 0,
      expired_quantity: 0,
      expires_at: policy.expiration ? new Date(policy.expiration).toISOString() : null,
      purpose: policy.purpose ?? null,
      das_url: policy.dasUrl ?? null,
      image_url: policy.imageUrl ?? null,
      file_information_block_element_size: policy.fileInformationBlockElementSize ?? null,
      licensee_key_sn: licenseeKeySN,
      public_key_sn: issuerKeySN,
      key_role_sn: licensorKeySN,
      device_identity: policy.deviceIdentity ?? null,
      parameter_version: policy.parameterVersion ?? null,
      device_parameters: policy.deviceParameters,
      quality_parameters: policy.qualityParameters,
      breakage_policy: policy.breakage.policy,
      breakage_value: policy.breakage.value ?? null,
      serial_type: serialization?.type ?? null,
      serial_prefix: serialization?.prefix ?? null,
      serial_start: serialization?.start ?? null,
      serial_end: serialization?.end ?? null,
      serial_next: serialization?.start ?? null,
      authorized_users: policy.authorizedUserList,
      downstream_device: policy.downstreamDevice ? 1 : 0,
      archived: 0,
      revoked: 0,
      revoked_at: null,
      replaces_order_id: null,
      sender_fingerprint: origin.source === 'partner' ? origin.sender.fingerprint : null,
      policy: canonicalJson(input),
      created_at: now,
      updated_at: now,
    };
    const duplicate = () => new AppError('orderNumberDuplicate', { field: `${POLICY_FIELD}.orderNumber` });
    try {
      await this.database.transaction(async (trx) => {
        const changes = this.changes(trx);
        if (policy.revokes) {
          const earlier = await this.earlierOrder(changes, sourceKey, policy.revokes.orderNumber);
          await changes.revokeOrder(earlier, true, actor, `replaced by order ${id}`, now);
          row.replaces_order_id = earlier.id;
          if (policy.revokes.orderNumber === policy.orderNumber) row.dedupe_key = `${row.dedupe_key}|r:${earlier.id}`;
        }
        if (await changes.orders.existsWithDedupeKey(row.dedupe_key)) throw duplicate();
        await changes.orders.insert(row);
        await changes.references.insert([
          { target: { kind: 'package', id: row.dsi_id }, referrer: { kind: 'order', id }, expiresAt: null },
        ]);
        if ('caller' in origin && origin.caller.role !== 'ADMIN') {
          await changes.orders.shareWithGroupsOf(id, origin.caller.userId);
        }
        await changes.audit(actor, 'licenceReceived', id, {
          orderNumber: policy.orderNumber,
          source: origin.source,
          dsiId: row.dsi_id,
          dsiVersion: row.dsi_version,
          quantity: row.quantity,
          ...(row.replaces_order_id ? { replaces: row.replaces_order_id } : {}),
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
    return { orderId: id };
  }

  /** The live order of `orderNumber` from this source that a new one revokes, locked. */
  private async earlierOrder(changes: LicensingChanges, sourceKey: string, orderNumber: string): Promise<OrderRecord> {
    const field = `${POLICY_FIELD}.revokes.orderNumber`;
    const candidates = await changes.orders.withOrderNumber(orderNumber);
    const same = candidates.filter((candidate) => candidate.source_company_name.toLowerCase() === sourceKey);
    const live = same.find((candidate) => candidate.revoked === 0);
    if (!live) throw new AppError(same.length > 0 ? 'orderAlreadyRevoked' : 'orderIdNotValid', { field });
    const locked = await changes.orders.lock(live.id);
    if (!locked || locked.revoked === 1) throw new AppError('orderAlreadyRevoked', { field });
    return locked;
  }

  list(query: TOrderListQuery, viewer: Viewer): Promise<TPage<TOrder>> {
    const { filters, sort } = listQueryOf(query);
    return this.changes().orders.list(filters, sort, query, viewer);
  }

  /** The order with its groups, one page of its authorizations and its latest history (newest first). */
  async fetch(query: TOrderFetchQuery, viewer: Viewer): Promise<TOrderDetail> {
    const changes = this.changes();
    const order = await changes.orders.findVisible(query.orderId, viewer);
    if (!order) throw new AppError('orderIdNotValid', { field: 'orderId' });
    const groupIds = await changes.orders.groupIds(order.id);
    const authorizations = await changes.authorizations.pageOfOrder(order.id, query);
    const history = await new AuditRepository(this.database.db, this.database.dialect).history([order.id], ORDER_HISTORY_SIZE);
    return { ...toOrder(order), groupIds, authorizations, history: history.entries, historyTruncated: history.truncated };
  }

  /** Archives (true) or restores (false) orders and their authorizations; every id must be visible. */
  async setArchived(orderIds: string[], archived: boolean, caller: Caller): Promise<{ data: TOrder[] }> {
    const field = archived ? 'archiveOrders' : 'restoreOrders';
    return this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      const errors = new ErrorCollector();
      // every id looked up in one query
      const visible = await changes.orders.visibleIds(orderIds, caller);
      for (const [index, orderId] of orderIds.entries()) {
        if (!visible.has(orderId)) errors.add('orderIdNotValid', `${field}[${index}].orderId`);
      }
      errors.throwIfAny();
      const ids = [...new Set(orderIds.map((orderId) => visible.get(orderId)!))];
      await changes.orders.setArchived(ids, archived, isoNow());
      await changes.auditMany(
        ids.map((id) => ({ actor: caller, type: archived ? 'orderArchived' : 'orderRestored', orderId: id })),
      );
      return { data: (await changes.orders.inOrder([...ids].sort())).map(toOrder) };
    });
  }

  async revoke(input: { orderId: string; includeAuthorized: boolean }, caller: Caller): Promise<TOrder> {
    return this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      if (!(await changes.orders.findVisible(input.orderId, caller))) throw new AppError('orderIdNotValid', { field: 'orderId' });
      const order = await changes.orders.lock(input.orderId);
      if (!order) throw new AppError('orderIdNotValid', { field: 'orderId' });
      await changes.revokeOrder(order, input.includeAuthorized, caller, 'revoked by a user');
      return toOrder((await changes.orders.find(order.id))!);
    });
  }

  async editGroups(input: { orderId: string; groupIds: number[] }, caller: Caller): Promise<TOrderDetail> {
    await this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      const order = await changes.orders.lock(input.orderId);
      if (!order) throw new AppError('orderIdNotValid', { field: 'orderId' });
      const groupIds = [...new Set(input.groupIds)];
      const existing = await changes.orders.existingGroupIds(groupIds);
      const errors = new ErrorCollector();
      input.groupIds.forEach((groupId, index) => {
        if (!existing.has(groupId)) errors.add('groupNotPresent', `groupIds[${index}]`);
      });
      errors.throwIfAny();
      await changes.orders.setGroups(order.id, groupIds);
      await changes.audit(caller, 'orderGroupsEdited', order.id, { groupIds });
    });
    return this.fetch({ orderId: input.orderId, pageNum: 1, numberOfItems: ORDER_DETAIL_PAGE_SIZE }, caller);
  }

  /**
   * `/apl/order/add`: the body's canonical JSON must carry a detached JWS (header
   * `x-manifold-signature`) whose `x5t#S256` names a trusted sender certificate, made with its key.
   */
  async addSigned(body: unknown, signature: string | undefined, sourceIp: string): Promise<{ orderId: string }> {
    const refused = (description: string) => new AppError('orderSenderNotTrusted', { description });
    if (!signature) throw refused('The request carries no x-manifold-signature header');
    let thumbprint: unknown;
    try {
      thumbprint = decodeProtectedHeader(signature)['x5t#S256'];
    } catch {
      throw refused('The signature header is not a JWS');
    }
    if (typeof thumbprint !== 'string') throw refused('The signature names no certificate (x5t#S256)');
    const sender = await new OrderSendersRepository(this.database.db).find(thumbprint);
    if (!sender) throw refused('The signing certificate is not a trusted order sender');
    if (validityAt(sender.certificate_pem, new Date()) !== 'valid') throw refused('The sender certificate is not valid now');
    try {
      await verifyDetachedJws(signature, canonicalJson(body), sender.certificate_pem);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw refused(`The signature does not verify: ${error.message}`);
    }
    const policy = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[POLICY_FIELD] : undefined;
    return this.add(policy, { source: 'partner', sender, sourceIp });
  }
}
