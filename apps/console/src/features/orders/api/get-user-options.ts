import { userPickerQueryOptions } from '../../../lib/pickers';

/** Users an authorization may name as authorized users, as the server finds them for `search`. */
export function userOptionsQueryOptions(search = '') {
  return userPickerQueryOptions(search);
}
