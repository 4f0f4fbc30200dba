import { addonNames, type TAddon, type TAddonName, type TGateName, type TServerConfig } from '@manifold/contract';
import type { SettingsRepository } from './settings.repository.js';
import { switchOn } from './trace-enabled.js';

/**
 * Settings keys of the server configuration (spec §3 Server config) and the addons. The
 * switches are stored as `'true'` / `'false'`; an absent switch is on. Other areas read
 * `traceEnabled` and `manageEnabled` directly: keep these names.
 */
export const serverSettingKeys = {
  siteName: 'serverSiteName',
  serverUrl: 'serverUrl',
  manageEnabled: 'manageEnabled',
  traceEnabled: 'traceEnabled',
} as const;

export const addonSettingKey = (name: TAddonName) => `addon.${name}.enabled`;

/** The installed operating licence: its file as uploaded, its verified terms (JSON), when. */
export const licenceSettingKeys = { file: 'licence.file', terms: 'licence.terms', installedAt: 'licence.installedAt' } as const;

/** The addons an installed licence allows; undefined without a licence (all allowed). */
export function licensedAddons(termsJson: string | undefined): readonly string[] | undefined {
  if (termsJson === undefined) return undefined;
  return (JSON.parse(termsJson) as { addons: string[] }).addons;
}

/**
 * The one accessor of the site's name, address and switches. `SITE_NAME` and `PUBLIC_URL`
 * only seed the first values ({@link seed}); afterwards the administrator's settings rule. Read
 * from the database on every call, so every instance sharing it answers the new value at once.
 */
export class ServerSettings {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly seeds: { siteName: string; serverUrl: string },
  ) {}

  /** Stores the first values unless they exist (at every start; race-safe across instances). */
  async seed(): Promise<void> {
    await this.settings.insertIfAbsent(serverSettingKeys.siteName, this.seeds.siteName);
    await this.settings.insertIfAbsent(serverSettingKeys.serverUrl, this.seeds.serverUrl);
    await this.settings.insertIfAbsent(serverSettingKeys.manageEnabled, 'true');
    await this.settings.insertIfAbsent(serverSettingKeys.traceEnabled, 'true');
  }

  async siteName(): Promise<string> {
    return (await this.settings.get(serverSettingKeys.siteName)) ?? this.seeds.siteName;
  }

  async serverUrl(): Promise<string> {
    return (await this.settings.get(serverSettingKeys.serverUrl)) ?? this.seeds.serverUrl;
  }

  async serverConfig(): Promise<TServerConfig> {
    const values = await this.settings.getMany(Object.values(serverSettingKeys));
    return {
      serverSiteName: values.get(serverSettingKeys.siteName) ?? this.seeds.siteName,
      serverUrl: values.get(serverSettingKeys.serverUrl) ?? this.seeds.serverUrl,
      manageEnabled: switchOn(values.get(serverSettingKeys.manageEnabled)),
      traceEnabled: switchOn(values.get(serverSettingKeys.traceEnabled)),
    };
  }

  /** Stores the configuration (with `settings` over a transaction, as part of it). */
  async setServerConfig(config: TServerConfig, settings: SettingsRepository = this.settings): Promise<void> {
    await settings.set(serverSettingKeys.siteName, config.serverSiteName);
    await settings.set(serverSettingKeys.serverUrl, config.serverUrl);
    await settings.set(serverSettingKeys.manageEnabled, String(config.manageEnabled));
    await settings.set(serverSettingKeys.traceEnabled, String(config.traceEnabled));
  }

  /** Each addon and whether it is on: its switch, and the installed licence allowing it. */
  async addons(): Promise<TAddon[]> {
    const values = await this.settings.getMany([...addonNames.map(addonSettingKey), licenceSettingKeys.terms]);
    const licensed = licensedAddons(values.get(licenceSettingKeys.terms));
    return addonNames.map((name) => ({
      name,
      enabled: switchOn(values.get(addonSettingKey(name))) && (licensed === undefined || licensed.includes(name)),
    }));
  }

  async setAddon(name: TAddonName, enabled: boolean, settings: SettingsRepository = this.settings): Promise<void> {
    await settings.set(addonSettingKey(name), String(enabled));
  }

  /** The functions and addons switched off (one query). */
  async closedGates(): Promise<TGateName[]> {
    const keys = [
      serverSettingKeys.manageEnabled,
      serverSettingKeys.traceEnabled,
      ...addonNames.map(addonSettingKey),
      licenceSettingKeys.terms,
    ];
    const values = await this.settings.getMany(keys);
    const licensed = licensedAddons(values.get(licenceSettingKeys.terms));
    const closed: TGateName[] = [];
    if (!switchOn(values.get(serverSettingKeys.manageEnabled))) closed.push('manage');
    if (!switchOn(values.get(serverSettingKeys.traceEnabled))) closed.push('trace');
    for (const name of addonNames) {
      if (!switchOn(values.get(addonSettingKey(name))) || (licensed !== undefined && !licensed.includes(name))) closed.push(name);
    }
    return closed;
  }

  async isOpen(gate: TGateName): Promise<boolean> {
    return !(await this.closedGates()).includes(gate);
  }
}
