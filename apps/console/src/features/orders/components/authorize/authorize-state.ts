import type { TAuthorizeRequest, TDeviceParameter, TDeviceParameterValue, TOrderDetail } from '@manifold/contract';
import type { FormErrors } from '../../../../components/api-error-message';
import { epochOfWallTime } from '../expiry';
import type { ParameterValues } from '../parameter-editor';
import { narrowedDeviceParameter, narrowedQualityParameter, type ParameterField } from '../parameter-fields';

export type Target = 'device' | 'manage';

export interface TrackingRow {
  key: number;
  fieldName: string;
  fieldValue: string;
}

/** Everything the authorize form holds, in one place. */
export interface AuthorizeState {
  target: Target;
  deviceId: string | null;
  manageId: string;
  quantity: number | '';
  /** Wall time (`datetime-local`) in the user's time zone; empty: no expiry of its own. */
  expiration: string;
  deviceValues: ParameterValues;
  qualityValues: ParameterValues;
  tracking: TrackingRow[];
  nextRow: number;
  authorizedUsers: string[];
  errors: FormErrors;
}

export type ParameterGroup = 'device' | 'quality';

export type AuthorizeAction =
  | { type: 'target'; target: Target }
  | { type: 'device'; deviceId: string | null }
  | { type: 'manageId'; manageId: string }
  | { type: 'quantity'; quantity: number | '' }
  | { type: 'expiration'; expiration: string }
  | { type: 'parameter'; group: ParameterGroup; key: string; value: TDeviceParameterValue | undefined }
  | { type: 'addTracking' }
  | { type: 'editTracking'; key: number; change: Partial<Pick<TrackingRow, 'fieldName' | 'fieldValue'>> }
  | { type: 'removeTracking'; key: number }
  | { type: 'authorizedUsers'; users: string[] }
  | { type: 'errors'; errors: FormErrors };

export const noErrors: FormErrors = { fields: {}, general: [] };

export function initialAuthorizeState(order: TOrderDetail): AuthorizeState {
  return {
    target: 'device',
    deviceId: null,
    manageId: '',
    quantity: order.remainingQuantity > 0 ? 1 : '',
    expiration: '',
    deviceValues: {},
    qualityValues: {},
    tracking: [],
    nextRow: 0,
    authorizedUsers: [],
    errors: noErrors,
  };
}

export function authorizeReducer(state: AuthorizeState, action: AuthorizeAction): AuthorizeState {
  switch (action.type) {
    case 'target':
      return { ...state, target: action.target };
    case 'device':
      // another machine, other bounds: its values start over
      return { ...state, deviceId: action.deviceId, deviceValues: {} };
    case 'manageId':
      return { ...state, manageId: action.manageId };
    case 'quantity':
      return { ...state, quantity: action.quantity };
    case 'expiration':
      return { ...state, expiration: action.expiration };
    case 'parameter': {
      const values = action.group === 'device' ? 'deviceValues' : 'qualityValues';
      return { ...state, [values]: { ...state[values], [action.key]: action.value } };
    }
    case 'addTracking':
      return {
        ...state,
        tracking: [...state.tracking, { key: state.nextRow, fieldName: '', fieldValue: '' }],
        nextRow: state.nextRow + 1,
      };
    case 'editTracking':
      return {
        ...state,
        tracking: state.tracking.map((row) => (row.key === action.key ? { ...row, ...action.change } : row)),
      };
    case 'removeTracking':
      return { ...state, tracking: state.tracking.filter((row) => row.key !== action.key) };
    case 'authorizedUsers':
      return { ...state, authorizedUsers: action.users };
    case 'errors':
      return { ...state, errors: action.errors };
  }
}

/** Tracking rows with a value but no name: the form refuses them before sending. */
export function unnamedTrackingRows(tracking: readonly TrackingRow[]): string[] {
  return tracking.flatMap((row, index) => (row.fieldName.trim() === '' && row.fieldValue !== '' ? [`tracking.${index}`] : []));
}

export interface RequestContext {
  order: TOrderDetail;
  deviceFields: readonly ParameterField[];
  qualityFields: readonly ParameterField[];
  machineParameters: readonly TDeviceParameter[];
  timeZone: string;
}

/** The request the form's state asks for: only the parameters given a value, narrowed inside their parents. */
export function authorizeRequestOf(state: AuthorizeState, context: RequestContext): TAuthorizeRequest {
  const { order, deviceFields, qualityFields, machineParameters, timeZone } = context;
  const deviceParameters = deviceFields.flatMap((field) => {
    const value = state.deviceValues[field.key];
    if (value === undefined || field.bounds.lockedValue !== undefined) return [];
    const parents = [
      order.deviceParameters.find((parameter) => parameter.parameterId === field.id),
      machineParameters.find((parameter) => parameter.parameterId === field.id),
    ].filter((parent) => parent !== undefined);
    return [narrowedDeviceParameter(field, parents, value)];
  });
  const qualityParameters = qualityFields.flatMap((field) => {
    const value = state.qualityValues[field.key];
    const parent = order.qualityParameters.find((quality) => quality.id === field.id);
    if (value === undefined || parent === undefined || field.bounds.lockedValue !== undefined) return [];
    return [narrowedQualityParameter(field, parent, value)];
  });
  const expiry = state.expiration === '' ? undefined : epochOfWallTime(state.expiration, timeZone);
  return {
    orderId: order.orderId,
    ...(state.target === 'device' ? { deviceId: state.deviceId } : { manageId: state.manageId.trim() || null }),
    quantity: state.quantity === '' ? null : state.quantity,
    expiration: expiry ?? null,
    authorizedUserList: state.authorizedUsers,
    tracking: state.tracking
      .filter((row) => row.fieldName.trim() !== '' || row.fieldValue !== '')
      .map(({ fieldName, fieldValue }) => ({ fieldName, fieldValue })),
    deviceParameters,
    qualityParameters,
  };
}
