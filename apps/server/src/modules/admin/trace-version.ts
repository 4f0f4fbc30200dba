import type { SettingsRepository } from '../settings/settings.repository.js';

/** Settings key that turns on this program's own Trace function (`'true'`; anything else: off). */
export const traceEnabledSettingKey = 'traceEnabled';

/**
 * `GET version`'s `traceVersion`: the version of the Trace function in use.
 *
 * 1. Trace enabled here (settings `traceEnabled` = `'true'`): this program's version.
 * 2. Otherwise the version of the registered Trace instance. Trace registrations do not exist
 *    in this server yet, so there is never one to report.
 * 3. No Trace function at all: `null`.
 */
export async function traceVersionInUse(settings: SettingsRepository, ownVersion: string): Promise<string | null> {
  if ((await settings.get(traceEnabledSettingKey)) === 'true') return ownVersion;
  return null;
}
