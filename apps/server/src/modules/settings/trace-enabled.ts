import type { SettingsRepository } from './settings.repository.js';

/** The settings key of the server's Trace switch (spec §3 server config `traceEnabled`; set through `admin/server`). */
export const TRACE_ENABLED_KEY = 'traceEnabled';

/** A stored on/off switch (`manageEnabled`, `traceEnabled`): on unless it says `false` (or `0`). */
export function switchOn(stored: string | undefined): boolean {
  const value = stored?.trim().toLowerCase();
  return value !== 'false' && value !== '0';
}

/** Whether this instance takes events from its peers as a Trace instance: on unless the setting says `false`. */
export async function traceEnabled(settings: Pick<SettingsRepository, 'get'>): Promise<boolean> {
  return switchOn(await settings.get(TRACE_ENABLED_KEY));
}
