import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  deviceParameterProblems,
  type ErrorToken,
  type NarrowingProblem,
  parameterSetProblems,
  type TAuthorization,
  type TAuthorizationListQuery,
  type TAuthorizeRequest,
  type TDeviceIdentityConstraint,
  type TDeviceParameter,
  type TDtl,
  type TEnforceOrder,
  type TPage,
  type TQualityParameter,
} from '@manifold/contract';
import { describeCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import { wrapContentKey } from '../../crypto/design-keys.js';
import { certificateThumbprint } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import { pageOffset, toPage } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { AuthorizationRow, AuthorizationValues, ManageInstanceRow, OrderRow } from '../../db/schema-licensing.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import { AppError, AppErrors } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { authorizationDocument, effectiveParameters } from './authorization-document.js';
import { type Actor, LicensingChanges } from './licensing-changes.js';
import { LicensingRepository, sortColumns, type Viewer, visibleOrderIds } from './licensing.repository.js';
import { qualityAsDeviceParameter } from './policy-check.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Latest instant a JavaScript Date can hold (epoch ms). */
const MAX_TIME = 8_640_000_000_000_000;

/** The value-rule tokens of a parameter set checked on its own, as the authorize call spells them. */
const authorizeVariant: Partial<Record<ErrorToken, ErrorToken>> = {
  valueOutOfRange: 'invalidValueOutOfRange',
  invalidValueFormat: 'invalidValueInput',
  valueNotFoundInChoiceList: 'invalidValueNotFoundInChoiceList',
  valueExclusiveAllowsOnlyOneValue: 'invalidValueExclusiveAllowsOnlyOneValue',
};

/** Order identity field → the spec's token for a machine that does not match it. */
const identityChecks: [keyof TDeviceIdentityConstraint, keyof DeviceRow, ErrorToken | null][] = [
  ['id', 'identity_id', null],
  ['name', 'name', 'invalidDeviceMachineName'],
  ['family', 'family', 'invalidDeviceFamily'],
  ['deviceClass', 'device_class', 'invalidDeviceMachineClass'],
  ['technology', 'technology', 'invalidDeviceTechnology'],
  ['serialNumber', 'serial_number', 'invalidDeviceSerialNumber'],
  ['manufacturer', 'manufacturer', 'invalidDeviceManufacturer'],
  ['model', 'model', 'invalidDeviceModel'],
];

const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

class Problems {
  readonly errors: AppError[] = [];
  add(token: ErrorToken, field: string, description?: string): void {
    this.errors.push(new AppError(token, { field, ...(description ? { description } : {}) }));
  }
  throwIfAny(): void {
    if (this.errors.length === 1) throw this.errors[0]!;
    if (this.errors.length > 1) throw new AppErrors(this.errors);
  }
}

/**
 * Authorizations: parts of an order handed to one machine or one downstream Manage instance
 * under every rule of the licence chain (DOMAIN.md), then sent, revoked and downloaded as signed
 * XML. Quantity and serial numbers are taken by one conditional UPDATE, so concurrent requests
 * on any number of server instances never hand out more than the order holds.
 */
export class AuthorizationsService {
  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
    private readonly publicUrl: string,
  ) {}

  private changes(trx: Kysely<DB>): LicensingChanges {
    return new LicensingChanges(trx, this.database.dialect);
  }

  private repository(db: Kysely<DB> = this.database.db): LicensingRepository {
    return new LicensingRepository(db);
  }

  async authorize(input: TAuthorizeRequest, caller: Caller): Promise<{ authorizationId: string }> {
    try {
      return await this.tryAuthorize(input, caller);
    } catch (error) {
      if (error instanceof AppError || error instanceof AppErrors) {
        const tokens = error instanceof AppError ? [error.token] : error.errors.map((e) => e.token);
        const orderId = input.orderId && uuidPattern.test(input.orderId) ? input.orderId : null;
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

  private async tryAuthorize(input: TAuthorizeRequest, caller: Caller): Promise<{ authorizationId: string }> {
    const problems = new Problems();
    const now = new Date();
    const nowIso = now.toISOString();
    const repository = this.repository();

    // the order
    let order: OrderRow | undefined;
    if (!input.orderId) problems.add('orderIdNotValid', 'orderId', 'orderId is required');
    else if (uuidPattern.test(input.orderId)) order = await repository.findVisibleOrder(input.orderId, caller);
    if (input.orderId && !order) problems.add('orderIdNotValid', 'orderId');
    if (order?.revoked === 1) problems.add('orderAlreadyRevoked', 'orderId');
    const live = order && order.revoked === 0 ? order : undefined;

    // quantity
    const quantity = input.quantity;
    if (quantity === null || quantity === undefined) problems.add('quantityIsRequired', 'quantity');
    else if (quantity <= 0) problems.add('quantityMustBeGreaterThanZero', 'quantity');
    else if (live) {
      const remaining = live.quantity - live.allocated - live.expired_quantity;
      if (remaining <= 0) problems.add('orderHasNoMoreQuantity', 'quantity');
      else if (quantity > remaining)
        problems.add('quantityExceedsAllottedAmount', 'quantity', `The order has ${remaining} left; ${quantity} were asked for`);
    }

    // time
    let expiresAt = live?.expires_at ?? null;
    if (live?.expires_at && live.expires_at <= nowIso) problems.add('orderHasExpired', 'orderId');
    if (input.expiration !== null && input.expiration !== undefined) {
      if (input.expiration <= now.getTime()) problems.add('expirationDateInThePast', 'expiration');
      else if (input.expiration > MAX_TIME || (live?.expires_at && input.expiration > Date.parse(live.expires_at)))
        problems.add('expirationDateIsAfterParentExpirationDate', 'expiration');
      else expiresAt = new Date(input.expiration).toISOString();
    }

    // the target
    const deviceId = input.deviceId || undefined;
    const manageId = input.manageId || undefined;
    let device: DeviceRow | undefined;
    let manage: ManageInstanceRow | undefined;
    if (deviceId === undefined && manageId === undefined) problems.add('deviceOrManageIdNotProvided', 'deviceId');
    else if (deviceId !== undefined && manageId !== undefined)
      problems.add('deviceOrManageIdNotProvided', 'manageId', 'Give either a deviceId or a manageId, not both');
    else if (deviceId !== undefined) {
      device = uuidPattern.test(deviceId)
        ? await this.database.db.selectFrom('devices').selectAll().where('id', '=', deviceId).executeTakeFirst()
        : undefined;
      if (!device) problems.add('deviceIdNotValid', 'deviceId');
      else {
        if (device.registration_state !== 'Approved' || device.disabled === 1) problems.add('deviceNotApproved', 'deviceId');
        if (live) this.checkIdentity(live, device, problems);
      }
    } else if (manageId !== undefined) {
      manage = uuidPattern.test(manageId)
        ? await this.database.db.selectFrom('manage_instances').selectAll().where('id', '=', manageId).executeTakeFirst()
        : undefined;
      if (!manage) problems.add('manageIdNotValid', 'manageId');
      else if (manage.manage_type !== 'downStreamManage')
        problems.add('cannotSendAuthorizationsToUpstreamManageInstances', 'manageId');
      else if (manage.registration_state !== 'Approved') problems.add('manageInstaceNotApproved', 'manageId');
    }

    // parameters
    this.checkParameters(input, live, device, problems);

    // tracking fields
    const seen = new Set<string>();
    input.tracking.forEach((field, index) => {
      if (seen.has(field.fieldName)) problems.add('trackingFieldDuplicate', `tracking[${index}].fieldName`);
      seen.add(field.fieldName);
    });

    // authorized users
    if (input.authorizedUserList.length > 0) {
      const keys = input.authorizedUserList.map((name) => name.toLowerCase());
      const found = await this.database.db.selectFrom('users').select('username_key').where('username_key', 'in', keys).execute();
      const allowed = live ? (JSON.parse(live.authorized_users) as string[]).map((name) => name.toLowerCase()) : [];
      keys.forEach((key, index) => {
        if (!found.some((row) => row.username_key === key)) problems.add('userNotPresent', `authorizedUserList[${index}]`);
        else if (allowed.length > 0 && !allowed.includes(key))
          problems.add('authorizedUserNotInOrder', `authorizedUserList[${index}]`);
      });
    }

    // serial numbers
    const serialized = live?.serial_type !== null && live?.serial_type !== undefined;
    if (live && serialized) this.checkSerialization(live, quantity ?? 0, problems);

    problems.throwIfAny();
    if (!live || !quantity) throw new Error('unreachable: a valid request has an order and a quantity');

    const authorizationId = randomUUID();
    const narrowedDevice = input.deviceParameters;
    await this.database.transaction(async (trx) => {
      const changes = this.changes(trx);
      const repo = changes.repository();
      if (!(await repo.takeQuantity(live.id, quantity, nowIso, serialized))) {
        const fresh = await repo.findOrder(live.id);
        const refused = new Problems();
        if (!fresh || fresh.revoked === 1) refused.add('orderAlreadyRevoked', 'orderId');
        else {
          if (fresh.expires_at && fresh.expires_at <= nowIso) refused.add('orderHasExpired', 'orderId');
          const remaining = fresh.quantity - fresh.allocated - fresh.expired_quantity;
          if (remaining <= 0) refused.add('orderHasNoMoreQuantity', 'quantity');
          else if (quantity > remaining) refused.add('quantityExceedsAllottedAmount', 'quantity');
          if (serialized) this.checkSerialization(fresh, quantity, refused);
        }
        refused.throwIfAny();
        throw new AppError('orderHasNoMoreQuantity', { field: 'quantity' });
      }
      let serialFirst: number | null = null;
      if (serialized) {
        const next = await trx.selectFrom('orders').select('serial_next').where('id', '=', live.id).executeTakeFirstOrThrow();
        serialFirst = Number(next.serial_next) - quantity;
      }
      const row: AuthorizationValues = {
        id: authorizationId,
        order_id: live.id,
        version: 1,
        target_kind: device ? 'device' : 'manage',
        device_id: device?.id ?? null,
        manage_id: manage?.id ?? null,
        quantity,
        state: 'authorized',
        expires_at: expiresAt,
        serial_first: serialFirst,
        serial_last: serialFirst === null ? null : serialFirst + quantity - 1,
        authorized_users: JSON.stringify(input.authorizedUserList),
        tracking: JSON.stringify(input.tracking),
        device_parameters: JSON.stringify(narrowedDevice),
        quality_parameters: JSON.stringify(input.qualityParameters),
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
      };
      await repo.insertAuthorization(row);
      if (device)
        await changes.reference({ kind: 'device', id: device.id }, { kind: 'authorization', id: authorizationId }, expiresAt);
      await changes.reference({ kind: 'package', id: live.dsi_id }, { kind: 'authorization', id: authorizationId }, expiresAt);
      await changes.audit(caller, 'licenceAuthorized', live.id, {
        authorizationId,
        quantity,
        target: device ? { deviceId: device.id } : { manageId: manage?.id },
        serialFirst,
        expiration: expiresAt,
      });
    });
    return { authorizationId };
  }

  private checkIdentity(order: OrderRow, device: DeviceRow, problems: Problems): void {
    const wanted = order.device_identity ? (JSON.parse(order.device_identity) as TDeviceIdentityConstraint) : {};
    const mismatches: [ErrorToken | null, string][] = [];
    for (const [field, column, token] of identityChecks) {
      const value = wanted[field];
      if (value !== undefined && value.trim() !== '' && !same(value, device[column] as string | null))
        mismatches.push([token, field]);
    }
    if (order.parameter_version !== null && !same(order.parameter_version, device.parameter_version)) {
      mismatches.push(['invalidDeviceManufacturingInfo', 'parameterVersion']);
    }
    if (mismatches.length === 0) return;
    problems.add('deviceNotValidForAuthorization', 'deviceId');
    for (const [token, field] of mismatches) if (token) problems.add(token, `deviceIdentity.${field}`);
  }

  private checkParameters(
    input: TAuthorizeRequest,
    order: OrderRow | undefined,
    device: DeviceRow | undefined,
    problems: Problems,
  ): void {
    const report = (base: string, list: NarrowingProblem[]) => {
      for (const problem of list) problems.add(problem.token, `${base}.${problem.parameterId}.${problem.field}`);
    };
    for (const problem of deviceParameterProblems(input.deviceParameters, 'deviceParameters')) {
      problems.add(authorizeVariant[problem.token] ?? problem.token, problem.path);
    }
    if (!order) return;
    const orderParameters = JSON.parse(order.device_parameters) as TDeviceParameter[];
    const bounds: { source: 'order' | 'device'; parameters: TDeviceParameter[] }[] = [
      { source: 'order', parameters: orderParameters },
    ];
    if (device) bounds.push({ source: 'device', parameters: JSON.parse(device.parameters) as TDeviceParameter[] });
    report('deviceParameters', parameterSetProblems(bounds, input.deviceParameters, 'authorize'));
    const known = new Set(bounds.flatMap((bound) => bound.parameters.map((parameter) => parameter.parameterId)));
    for (const parameter of input.deviceParameters) {
      if (!known.has(parameter.parameterId))
        problems.add(
          'invalidValueInput',
          `deviceParameters.${parameter.parameterId}`,
          'Neither the order nor the machine has this parameter',
        );
    }

    const orderQuality = (JSON.parse(order.quality_parameters) as TQualityParameter[]).map(qualityAsDeviceParameter);
    const quality = input.qualityParameters.map(qualityAsDeviceParameter);
    for (const problem of deviceParameterProblems(quality, 'qualityParameters')) {
      problems.add(authorizeVariant[problem.token] ?? problem.token, problem.path);
    }
    report('qualityParameters', parameterSetProblems([{ source: 'order', parameters: orderQuality }], quality, 'authorize'));
    const knownQuality = new Set(orderQuality.map((parameter) => parameter.parameterId));
    for (const parameter of quality) {
      if (!knownQuality.has(parameter.parameterId))
        problems.add(
          'invalidValueInput',
          `qualityParameters.${parameter.parameterId}`,
          'The order has no such quality parameter',
        );
    }
  }

  private checkSerialization(order: OrderRow, quantity: number, problems: Problems): void {
    const start = Number(order.serial_start);
    const end = Number(order.serial_end);
    const next = Number(order.serial_next);
    const sound =
      (order.serial_type === 'Dec' || order.serial_type === 'Hex') &&
      [start, end, next].every(Number.isSafeInteger) &&
      start <= end &&
      next >= start;
    if (!sound) problems.add('serializationHasError', 'orderId');
    else if (next > end) problems.add('serializationOutOfNumbers', 'quantity');
    else if (quantity > 0 && next + quantity - 1 > end)
      problems.add('serializationDoesNotHaveEnoughNumbersForQuantity', 'quantity', `${end - next + 1} serial numbers are left`);
  }

  list(query: TAuthorizationListQuery, viewer: Viewer): Promise<TPage<TAuthorization>> {
    return this.repository().listAuthorizations(
      {
        archived: query.filterByArchived,
        dsiId: query.filterByDsiId,
        companyName: query.filterByCompanyName,
        userId: query.filterByUserId,
        orderId: query.orderId,
        authorizationId: query.authorizationId,
      },
      { column: sortColumns[query.sortBy], direction: query.sortOrder },
      query,
      viewer,
    );
  }

  /** The order (visible to the caller) and, when asked for, one of its authorizations. */
  private async orderAndAuthorization(
    db: Kysely<DB>,
    orderId: string,
    authorizationId: string | null | undefined,
    viewer: Viewer,
  ): Promise<{ order: OrderRow; authorization: AuthorizationRow | undefined }> {
    const repository = this.repository(db);
    const order = await repository.findVisibleOrder(orderId, viewer);
    if (!order) throw new AppError('orderIdNotValid', { field: 'orderId' });
    if (!authorizationId) return { order, authorization: undefined };
    const authorization = await repository.findAuthorization(authorizationId);
    if (!authorization || authorization.order_id !== order.id)
      throw new AppError('invalidOrderAndAuthorizationIdCombination', { field: 'authorizationId' });
    return { order, authorization };
  }

  /**
   * Sends one authorization (an `authorizationId`, `sendAll` not true) or every live one of the
   * order. To a machine: it becomes `sent`, i.e. offered to the machine's next STP pull. To a
   * downstream Manage instance: a message is queued in the outbox (delivered and retried with
   * back-off by the peer client) and the authorization is `sent` with delivery `pending`.
   * Anything that cannot go (revoked, expired, machine not approved or disabled) refuses the
   * whole call with `sendingAuthorizationFailed`, and nothing is sent.
   */
  async send(
    input: { orderId: string; authorizationId?: string | null | undefined; sendAll?: boolean | null | undefined },
    caller: Caller,
  ): Promise<{ data: { authorizationId: string; state: TAuthorization['state']; delivery: string | null }[] }> {
    const sent = await this.database.transaction(async (trx) => {
      const { order, authorization } = await this.orderAndAuthorization(trx, input.orderId, input.authorizationId, caller);
      let targets: AuthorizationRow[];
      if (authorization && input.sendAll !== true) targets = [authorization];
      else {
        const all = await trx
          .selectFrom('authorizations')
          .selectAll()
          .where('order_id', '=', order.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        if (all.length === 0) throw new AppError('orderHasNoAuthorizations', { field: 'orderId' });
        targets = all.filter((row) => row.state !== 'revoked');
        if (targets.length === 0)
          throw new AppError('sendingAuthorizationFailed', {
            field: 'orderId',
            description: 'Every authorization of the order is revoked',
          });
      }
      const now = isoNow();
      const problems = new Problems();
      for (const target of targets) {
        const field = `authorizations.${target.id}`;
        if (target.state === 'revoked') problems.add('sendingAuthorizationFailed', field, 'The authorization is revoked');
        else if (target.expires_at && target.expires_at <= now)
          problems.add('sendingAuthorizationFailed', field, 'The authorization has expired');
        else if (target.target_kind === 'device') {
          const device = await trx
            .selectFrom('devices')
            .select(['registration_state', 'disabled'])
            .where('id', '=', target.device_id!)
            .executeTakeFirst();
          if (!device || device.registration_state !== 'Approved' || device.disabled === 1)
            problems.add('sendingAuthorizationFailed', field, 'The machine is not approved, disabled or deregistered');
        }
      }
      problems.throwIfAny();
      const changes = this.changes(trx);
      const results: { authorizationId: string; state: TAuthorization['state']; delivery: string | null }[] = [];
      for (const target of targets) {
        let delivery: string | null = null;
        if (target.target_kind === 'manage') {
          const queued = await trx
            .selectFrom('outbox')
            .select('state')
            .where('kind', '=', 'authorization')
            .where('subject_id', '=', target.id)
            .where('state', 'in', ['pending', 'delivered'])
            .executeTakeFirst();
          delivery = queued?.state ?? 'pending';
          if (!queued) {
            await trx
              .insertInto('outbox')
              .values({
                kind: 'authorization',
                target_kind: 'manage',
                target_id: target.manage_id!,
                subject_id: target.id,
                payload: JSON.stringify({ orderId: order.id, authorizationId: target.id }),
                state: 'pending',
                attempts: 0,
                next_attempt_at: now,
                last_error: null,
                created_at: now,
                updated_at: now,
              })
              .execute();
          }
        }
        if (target.state === 'authorized') {
          await trx
            .updateTable('authorizations')
            .set((eb) => ({ state: 'sent', sent_at: now, updated_at: now, version: eb('version', '+', 1) }))
            .where('id', '=', target.id)
            .where('state', '=', 'authorized')
            .execute();
          await changes.audit(caller, 'licenceSent', order.id, {
            authorizationId: target.id,
            target: target.device_id ?? target.manage_id,
          });
        }
        results.push({ authorizationId: target.id, state: target.state === 'authorized' ? 'sent' : target.state, delivery });
      }
      return results;
    });
    return { data: sent };
  }

  async revoke(input: { orderId: string; authorizationId: string }, caller: Caller): Promise<TAuthorization> {
    await this.database.transaction(async (trx) => {
      const { order } = await this.orderAndAuthorization(trx, input.orderId, input.authorizationId, caller);
      const changes = this.changes(trx);
      await changes.lockOrder(order.id);
      const authorization = await changes.repository().findAuthorization(input.authorizationId);
      await changes.revokeAuthorization(authorization!, caller);
    });
    return (await this.repository().authorizationsInOrder([input.authorizationId]))[0]!;
  }

  /** `authorization/download`: the signed XML of an authorization that is not revoked. */
  async download(input: { orderId: string; authorizationId: string }, caller: Caller): Promise<string> {
    const { order, authorization } = await this.orderAndAuthorization(
      this.database.db,
      input.orderId,
      input.authorizationId,
      caller,
    );
    if (authorization!.state === 'revoked') throw new AppError('authorizationAlreadyRevoked', { field: 'authorizationId' });
    const xml = await this.signedDocument(order, authorization!);
    await this.changes(this.database.db).audit(caller, 'licenceDownloaded', order.id, { authorizationId: authorization!.id });
    return xml;
  }

  /**
   * The authorization as signed XML for its recipient: every private design file's content key
   * is unwrapped with this server's encryption key and wrapped again for the recipient's
   * encryption certificate, so only that machine (or instance) can open the design.
   */
  async signedDocument(order: OrderRow, authorization: AuthorizationRow): Promise<string> {
    const db = this.database.db;
    const device = authorization.device_id
      ? await db.selectFrom('devices').selectAll().where('id', '=', authorization.device_id).executeTakeFirst()
      : undefined;
    const manage = authorization.manage_id
      ? await db.selectFrom('manage_instances').selectAll().where('id', '=', authorization.manage_id).executeTakeFirst()
      : undefined;
    const recipientPem = device?.encryption_certificate ?? manage?.encryption_certificate ?? null;
    if (!recipientPem) {
      throw new AppError(authorization.device_id ? 'deviceIdNotValid' : 'manageIdNotValid', {
        field: authorization.device_id ? 'deviceId' : 'manageId',
        description: 'The recipient is no longer registered or has no encryption certificate',
      });
    }
    const recipient = parseCertificateBundle(recipientPem)[0]!.pem;
    const files = await db
      .selectFrom('revision_files')
      .selectAll()
      .where('revision_id', '=', order.revision_id)
      .orderBy('file_id')
      .execute();
    const wrapped = [];
    for (const file of files) {
      const wrappedKey = file.wrapped_key
        ? await wrapContentKey(await this.credentials.unwrapContentKey(file.wrapped_key), recipient)
        : null;
      wrapped.push({ file, wrappedKey });
    }
    const signing = await this.credentials.signingIdentity();
    const deviceParameters = effectiveParameters<TDeviceParameter>(
      [
        JSON.parse(authorization.device_parameters) as TDeviceParameter[],
        JSON.parse(order.device_parameters) as TDeviceParameter[],
        device ? (JSON.parse(device.parameters) as TDeviceParameter[]) : [],
      ],
      (parameter) => parameter.parameterId,
    );
    const qualityParameters = effectiveParameters<TQualityParameter>(
      [
        JSON.parse(authorization.quality_parameters) as TQualityParameter[],
        JSON.parse(order.quality_parameters) as TQualityParameter[],
      ],
      (parameter) => parameter.id,
    );
    const xml = authorizationDocument({
      authorization,
      order,
      device,
      manageId: authorization.manage_id,
      issuer: { manageUrl: this.publicUrl, keySerialNumber: describeCertificate(signing.certificatePem).serialNumber },
      recipientThumbprint: certificateThumbprint(recipient),
      files: wrapped,
      deviceParameters,
      qualityParameters,
    });
    return this.credentials.signXml(xml);
  }

  /**
   * `enforce/order/list`: what was handed to machines (Enforce) — authorizations to a machine
   * that were sent — with their state (sent, received, revoked), newest first.
   */
  async enforceList(
    query: { pageNum: number; numberOfItems: number; deviceId?: string | undefined; state?: TAuthorization['state'] | undefined },
    viewer: Viewer,
  ): Promise<TPage<TEnforceOrder>> {
    let base = this.database.db
      .selectFrom('authorizations')
      .where('authorizations.target_kind', '=', 'device')
      .where('authorizations.sent_at', 'is not', null);
    if (query.deviceId) base = base.where('authorizations.device_id', '=', query.deviceId);
    if (query.state) base = base.where('authorizations.state', '=', query.state);
    if (viewer.role !== 'ADMIN') base = base.where('authorizations.order_id', 'in', visibleOrderIds(this.database.db, viewer));
    const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .innerJoin('orders', 'orders.id', 'authorizations.order_id')
      .leftJoin('devices', 'devices.id', 'authorizations.device_id')
      .selectAll('authorizations')
      .select(['orders.order_number', 'devices.name as device_name'])
      .orderBy('authorizations.sent_at', 'desc')
      .orderBy('authorizations.id', 'desc')
      .limit(query.numberOfItems)
      .offset(pageOffset(query))
      .execute();
    return toPage(
      query,
      total.n,
      rows.map((row) => ({
        authorizationId: row.id,
        orderId: row.order_id,
        orderNumber: row.order_number,
        dsiId: row.dsi_id,
        deviceId: row.device_id!,
        deviceName: row.device_name,
        quantity: row.quantity,
        state: row.state,
        expiration: row.expires_at,
        dateSent: row.sent_at,
        dateReceived: row.received_at,
        dateRevoked: row.revoked_at,
      })),
    );
  }

  /** `dtl/list`: machine data licences, newest first (a USER: those of the orders of their groups). */
  async dtlList(
    query: { pageNum: number; numberOfItems: number; deviceId?: string | undefined; orderId?: string | undefined },
    viewer: Viewer,
  ): Promise<TPage<TDtl>> {
    let base = this.database.db.selectFrom('dtls');
    if (query.deviceId) base = base.where('device_id', '=', query.deviceId);
    if (query.orderId) base = base.where('order_id', '=', query.orderId);
    if (viewer.role !== 'ADMIN') base = base.where('order_id', 'in', visibleOrderIds(this.database.db, viewer));
    const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(query.numberOfItems)
      .offset(pageOffset(query))
      .execute();
    return toPage(
      query,
      total.n,
      rows.map((row) => ({
        dtlId: row.id,
        deviceId: row.device_id,
        authorizationId: row.authorization_id,
        orderId: row.order_id,
        dsiId: row.dsi_id,
        fileName: row.file_name,
        size: Number(row.size),
        sha256: row.sha256,
        manageId: row.manage_id,
        dateCreated: row.created_at,
      })),
    );
  }

  /** For the machine-pull service: record what a machine did with its authorization. */
  async audit(
    actor: Actor,
    type: 'licenceReceivedByMachine' | 'designPackageReceivedByMachine' | 'uploadTokenIssued',
    orderId: string,
    details: Record<string, unknown>,
  ) {
    await this.changes(this.database.db).audit(actor, type, orderId, details);
  }
}
