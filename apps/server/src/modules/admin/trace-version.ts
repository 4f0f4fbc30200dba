import { serverSettingKeys, type ServerSettings } from '../settings/server-settings.js';

/** Settings key of the Trace switch (`'false'`: off; absent or anything else: on). */
export const traceEnabledSettingKey = serverSettingKeys.traceEnabled;

/**
 * `GET version`'s `traceVersion`: the version of the Trace function in use.
 *
 * 1. Trace enabled here (settings `traceEnabled`, on unless set to `'false'`): this program's version.
 * 2. Otherwise the version of the registered Trace instance. Trace registrations do not report
 *    a version in this server yet, so there is never one to report.
 * 3. No Trace function at all: `null`.
 */
export async function traceVersionInUse(serverSettings: ServerSettings, ownVersion: string): Promise<string | null> {
  return (await serverSettings.isOpen('trace')) ? ownVersion : null;
}
