import {
  ZDevice,
  ZDeviceDetail,
  ZGroup,
  ZManageInstance,
  ZPackage,
  ZPage,
  ZUserProfile,
  displayName,
  type TDevice,
  type TGroup,
  type TManageInstance,
  type TPackage,
  type TUserProfile,
} from '@manifold/contract';
import { queryOptions, type QueryKey } from '@tanstack/react-query';
import { apiRequest } from './api-client';
import { taggedMeta } from './query-tags';

/**
 * The server searches behind the console's pickers of users, groups and machines: each asks for
 * the first page of what matches the typed text instead of loading every entry. Shared here
 * because several features pick among another feature's entities; the query keys are the
 * pickers' own (`['pickers', …]`), so no feature builds another's keys.
 */
export interface PickerOption {
  value: string;
  label: string;
}

/** How many matches a picker shows; more matches ask the user to type on. */
export const pickerPageSize = 50;

/** The first page of matches for `search`, sent as the list's text filter (`search`, or `name` where the list calls it so). */
function pickerQuery(search: string, filter: 'search' | 'name' = 'search') {
  const term = search.trim();
  return { pageNum: 1, numberOfItems: pickerPageSize, ...(term === '' ? {} : { [filter]: term }) };
}

/** Typed as any key, so one picker component takes every source's query. */
function pickerKey(...parts: unknown[]): QueryKey {
  return ['pickers', ...parts];
}

const ZUserPage = ZPage(ZUserProfile);
const ZGroupPage = ZPage(ZGroup);
const ZDevicePage = ZPage(ZDevice);

/** Users whose username, name or e-mail contain `search`. */
export function userPickerQueryOptions(search = '') {
  const query = pickerQuery(search);
  return queryOptions({
    queryKey: pickerKey('users', query),
    queryFn: ({ signal }) => apiRequest('GET /ui/user/list', ZUserPage, { query, signal }),
    meta: taggedMeta('users'),
  });
}

/** Groups whose name contains `search`. */
export function groupPickerQueryOptions(search = '') {
  const query = pickerQuery(search);
  return queryOptions({
    queryKey: pickerKey('groups', query),
    queryFn: ({ signal }) => apiRequest('GET /ui/groups/list', ZGroupPage, { query, signal }),
  });
}

/** Machines (approved only, with `approved`) whose name, deviceId or serial number contain `search`. */
export function devicePickerQueryOptions(search = '', { approved }: { approved?: true } = {}) {
  const query = { ...pickerQuery(search), ...(approved ? { approved } : {}) };
  return queryOptions({
    queryKey: pickerKey('devices', query),
    queryFn: ({ signal }) => apiRequest('GET /ui/device/list', ZDevicePage, { query, signal }),
  });
}

/** Approved machines whose name, deviceId or serial number contain `search`. */
export function approvedDevicePickerQueryOptions(search = '') {
  return devicePickerQueryOptions(search, { approved: true });
}

const ZPackagePage = ZPage(ZPackage);

/** Design packages whose design name contains `search` (`package/list` searches names only). */
export function packagePickerQueryOptions(search = '') {
  const query = pickerQuery(search, 'name');
  return queryOptions({
    queryKey: pickerKey('packages', query),
    queryFn: ({ signal }) => apiRequest('GET /ui/package/list', ZPackagePage, { query, signal }),
  });
}

export function packageOption(pkg: TPackage): PickerOption {
  return { value: pkg.dsiId, label: `${pkg.designName} (${pkg.dsiId})` };
}

export function userOption(user: TUserProfile): PickerOption {
  return { value: user.username, label: `${displayName(user)} (${user.username})` };
}

export function groupOption(group: TGroup): PickerOption {
  return { value: String(group.userGroupId), label: group.name };
}

export function deviceOption(device: TDevice): PickerOption {
  return { value: device.deviceId, label: `${device.deviceIdentity.name} (${device.deviceIdentity.serialNumber})` };
}

/** The picked machine with its parameters (the authorize form's second bound). */
export function pickedDeviceQueryOptions(deviceId: string) {
  return queryOptions({
    queryKey: pickerKey('device-detail', deviceId),
    queryFn: ({ signal }) => apiRequest('GET /ui/device/fetch', ZDeviceDetail, { query: { deviceId }, signal }),
  });
}

const ZManagePage = ZPage(ZManageInstance);
/** The most registrations `manage/list` gives in one page; the Manage picker reads that one page. */
const managePickerPageSize = 500;

/**
 * The approved downstream Manage instances an authorization may go to. `manage/list` has no text
 * search, so the picker reads the first page of downstream registrations and keeps the approved.
 */
export function approvedDownstreamManageQueryOptions() {
  const query = { pageNum: 1, numberOfItems: managePickerPageSize, registrationType: 'downStreamManage' as const };
  return queryOptions({
    queryKey: pickerKey('manage', query),
    queryFn: async ({ signal }) => {
      const page = await apiRequest('GET /ui/manage/list', ZManagePage, { query, signal });
      return page.data.filter((instance) => instance.registrationState === 'Approved');
    },
  });
}

export function manageOption(instance: TManageInstance): PickerOption {
  return { value: instance.manageId, label: `${instance.manageSiteName} (${instance.manageURL})` };
}
