import { describe, expect, it } from 'vitest';
import { type ErrorToken, type TAuthorizeRequest, ZAuthorizeRequest } from '@manifold/contract';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { type AppError, AppErrors, ErrorCollector } from '../../lib/app-error.js';
import {
  type AuthorizeFacts,
  checkAuthorize,
  checkAuthorizedUsers,
  checkExpiration,
  checkQuantity,
  checkSerialization,
  checkTarget,
  checkTracking,
  whyTakeRefused,
} from './authorize-checks.js';
import { plainOrderColumns } from '../../../test/helpers/seeded-orders.js';
import type { OrderRecord } from './orders.repository.js';
import type { LicensedDevice } from './recipients.repository.js';

const now = new Date('2030-01-01T00:00:00.000Z');
const orderId = '00000000-0000-4000-8000-000000000001';
const deviceId = '00000000-0000-4000-8000-000000000002';

function order(changes: Partial<OrderRecord> = {}): OrderRecord {
  return {
    ...plainOrderColumns,
    id: orderId,
    order_number: 'PO-1',
    dedupe_key: 'acme|po-1',
    company_name: 'Acme',
    source_company_name: 'Acme',
    manage_user_id: 1,
    user_id: 'admin',
    dsi_id: 'dsi',
    revision_id: 'rev',
    dsi_version: 1,
    design_name: 'Design',
    digest_value: 'ab',
    quantity: 10,
    licensee_key_sn: '01',
    device_parameters: [],
    quality_parameters: [],
    breakage_policy: 'None',
    authorized_users: [],
    archived: 0,
    created_at: '2029-01-01T00:00:00.000Z',
    updated_at: '2029-01-01T00:00:00.000Z',
    ...changes,
  };
}

function device(changes: Partial<LicensedDevice> = {}): LicensedDevice {
  return {
    id: deviceId,
    registration_state: 'Approved',
    identity_id: 'machine-1',
    name: 'Printer',
    serial_number: 'SN1',
    model: 'M1',
    family: null,
    manufacturer: 'Acme',
    device_class: null,
    technology: null,
    image: null,
    parameter_version: null,
    parameters: [],
    authorized_users: '[]',
    signing_certificate: '',
    signing_fingerprint: '',
    encryption_certificate: '',
    encryption_fingerprint: '',
    disabled: 0,
    version: 1,
    source_ip: null,
    created_at: '2029-01-01T00:00:00.000Z',
    updated_at: '2029-01-01T00:00:00.000Z',
    ...changes,
  };
}

function request(input: Partial<TAuthorizeRequest> = {}): TAuthorizeRequest {
  return ZAuthorizeRequest.parse({ orderId, deviceId, quantity: 1, ...input });
}

/** The tokens and fields a collector holds, in order. */
function problemsOf(collector: ErrorCollector): { token: ErrorToken; field: string | undefined }[] {
  try {
    collector.throwIfAny();
  } catch (error) {
    const errors = error instanceof AppErrors ? error.errors : [error as AppError];
    return errors.map((e) => ({ token: e.token, field: e.field }));
  }
  return [];
}

function collect(check: (problems: ErrorCollector) => void): ErrorToken[] {
  const problems = new ErrorCollector();
  check(problems);
  return problemsOf(problems).map((problem) => problem.token);
}

describe('checkQuantity', () => {
  it('requires a quantity above zero', () => {
    expect(collect((p) => checkQuantity(undefined, order(), p))).toEqual(['quantityIsRequired']);
    expect(collect((p) => checkQuantity(0, order(), p))).toEqual(['quantityMustBeGreaterThanZero']);
  });

  it('refuses more than the order has left, and an order with nothing left', () => {
    expect(collect((p) => checkQuantity(4, order({ quantity: 10, allocated: 5, expired_quantity: 2 }), p))).toEqual([
      'quantityExceedsAllottedAmount',
    ]);
    expect(collect((p) => checkQuantity(1, order({ quantity: 10, allocated: 10 }), p))).toEqual(['orderHasNoMoreQuantity']);
    expect(collect((p) => checkQuantity(3, order({ quantity: 10, allocated: 5, expired_quantity: 2 }), p))).toEqual([]);
  });
});

describe('checkExpiration', () => {
  it('answers the order expiry unless an earlier one is asked for', () => {
    const expiring = order({ expires_at: '2031-01-01T00:00:00.000Z' });
    const problems = new ErrorCollector();
    expect(checkExpiration(undefined, expiring, now, problems)).toBe('2031-01-01T00:00:00.000Z');
    expect(checkExpiration(Date.parse('2030-06-01T00:00:00.000Z'), expiring, now, problems)).toBe('2030-06-01T00:00:00.000Z');
    expect(problems.size).toBe(0);
  });

  it('refuses a past expiration, one after the order, and an expired order', () => {
    expect(collect((p) => checkExpiration(now.getTime() - 1, order(), now, p))).toEqual(['expirationDateInThePast']);
    expect(
      collect((p) =>
        checkExpiration(Date.parse('2032-01-01T00:00:00.000Z'), order({ expires_at: '2031-01-01T00:00:00.000Z' }), now, p),
      ),
    ).toEqual(['expirationDateIsAfterParentExpirationDate']);
    expect(collect((p) => checkExpiration(undefined, order({ expires_at: '2029-06-01T00:00:00.000Z' }), now, p))).toEqual([
      'orderHasExpired',
    ]);
  });
});

describe('checkTarget', () => {
  const manage = { id: 'm', manage_type: 'downStreamManage', registration_state: 'Approved' } as ManageInstanceRow;

  it('wants exactly one of deviceId and manageId', () => {
    const none = request({ deviceId: null });
    expect(collect((p) => checkTarget({ input: none, device: undefined, manage: undefined }, order(), p))).toEqual([
      'deviceOrManageIdNotProvided',
    ]);
    const both = request({ manageId: 'm' });
    expect(collect((p) => checkTarget({ input: both, device: undefined, manage: undefined }, order(), p))).toEqual([
      'deviceOrManageIdNotProvided',
    ]);
  });

  it('wants an approved, enabled machine that matches the order identity', () => {
    const input = request();
    expect(collect((p) => checkTarget({ input, device: undefined, manage: undefined }, order(), p))).toEqual([
      'deviceIdNotValid',
    ]);
    expect(collect((p) => checkTarget({ input, device: device({ disabled: 1 }), manage: undefined }, order(), p))).toEqual([
      'deviceNotApproved',
    ]);
    const wanted = order({ device_identity: { manufacturer: 'Other', model: 'm1' } });
    expect(collect((p) => checkTarget({ input, device: device(), manage: undefined }, wanted, p))).toEqual([
      'deviceNotValidForAuthorization',
      'invalidDeviceManufacturer',
    ]);
  });

  it('wants an approved downstream Manage instance', () => {
    const input = request({ deviceId: null, manageId: 'm' });
    expect(collect((p) => checkTarget({ input, device: undefined, manage }, order(), p))).toEqual([]);
    expect(
      collect((p) => checkTarget({ input, device: undefined, manage: { ...manage, manage_type: 'upStreamManage' } }, order(), p)),
    ).toEqual(['cannotSendAuthorizationsToUpstreamManageInstances']);
    expect(
      collect((p) => checkTarget({ input, device: undefined, manage: { ...manage, registration_state: 'Pending' } }, order(), p)),
    ).toEqual(['manageInstaceNotApproved']);
  });
});

describe('checkTracking and checkAuthorizedUsers', () => {
  it('refuses a tracking field named twice', () => {
    const tracking = [
      { fieldName: 'lot', fieldValue: '1' },
      { fieldName: 'lot', fieldValue: '2' },
    ];
    expect(collect((p) => checkTracking(tracking, p))).toEqual(['trackingFieldDuplicate']);
  });

  it('wants existing users, and only the order’s when it names them', () => {
    const known = new Set(['ann', 'bob']);
    expect(collect((p) => checkAuthorizedUsers(['Ann', 'eve'], known, order(), p))).toEqual(['userNotPresent']);
    expect(collect((p) => checkAuthorizedUsers(['bob'], known, order({ authorized_users: ['ANN'] }), p))).toEqual([
      'authorizedUserNotInOrder',
    ]);
    expect(collect((p) => checkAuthorizedUsers(['ann'], known, order({ authorized_users: ['ANN'] }), p))).toEqual([]);
  });
});

describe('checkSerialization', () => {
  const serial = { serial_type: 'Dec', serial_start: 1, serial_end: 10, serial_next: 9 };

  it('refuses unsound, used-up and too-short ranges', () => {
    expect(collect((p) => checkSerialization({ ...serial, serial_type: 'Oct' }, 1, p))).toEqual(['serializationHasError']);
    expect(collect((p) => checkSerialization({ ...serial, serial_next: 11 }, 1, p))).toEqual(['serializationOutOfNumbers']);
    expect(collect((p) => checkSerialization(serial, 3, p))).toEqual(['serializationDoesNotHaveEnoughNumbersForQuantity']);
    expect(collect((p) => checkSerialization(serial, 2, p))).toEqual([]);
  });
});

describe('checkAuthorize', () => {
  const facts = (changes: Partial<AuthorizeFacts>): AuthorizeFacts => ({
    input: request(),
    now,
    order: order(),
    device: device(),
    manage: undefined,
    knownUsers: new Set(),
    ...changes,
  });

  it('passes a sound request and answers the live order and expiry', () => {
    const verdict = checkAuthorize(facts({}));
    expect(verdict.problems.size).toBe(0);
    expect(verdict.live?.id).toBe(orderId);
    expect(verdict.expiresAt).toBeNull();
  });

  it('answers every problem of one request together, in rule order', () => {
    const verdict = checkAuthorize(
      facts({
        input: request({ quantity: 0, expiration: now.getTime() - 1, authorizedUserList: ['nobody'] }),
        order: order({ revoked: 1 }),
        device: undefined,
      }),
    );
    expect(problemsOf(verdict.problems)).toEqual([
      { token: 'orderAlreadyRevoked', field: 'orderId' },
      { token: 'quantityMustBeGreaterThanZero', field: 'quantity' },
      { token: 'expirationDateInThePast', field: 'expiration' },
      { token: 'deviceIdNotValid', field: 'deviceId' },
      { token: 'userNotPresent', field: 'authorizedUserList[0]' },
    ]);
    expect(verdict.live).toBeUndefined();
  });

  it('refuses a missing or unknown order', () => {
    expect(problemsOf(checkAuthorize(facts({ input: request({ orderId: null }), order: undefined })).problems)).toEqual([
      { token: 'orderIdNotValid', field: 'orderId' },
    ]);
  });
});

describe('whyTakeRefused', () => {
  it('names what changed since the checks', () => {
    expect(collect((p) => whyTakeRefused(undefined, 1, now.toISOString(), p))).toEqual(['orderAlreadyRevoked']);
    expect(collect((p) => whyTakeRefused(order({ allocated: 9 }), 2, now.toISOString(), p))).toEqual([
      'quantityExceedsAllottedAmount',
    ]);
  });
});
