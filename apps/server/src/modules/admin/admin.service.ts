import { addonNames, type TAddon, type TAddonList, type TAddonName, type TServerConfig } from '@manifold/contract';
import { ErrorCollector } from '../../lib/app-error.js';
import type { LicenceService } from '../licence/licence.service.js';
import type { ServerSettings } from '../settings/server-settings.js';
import type { SettingsRepository } from '../settings/settings.repository.js';
import { checkServerConfig } from './server-config-rules.js';
import { setupSettingKeys } from './setup-state.js';

/** Server settings and addons (docs/administration.md). */
export class AdminService {
  constructor(
    private readonly serverSettings: ServerSettings,
    private readonly settings: SettingsRepository,
    private readonly licence: LicenceService,
  ) {}

  serverConfig(): Promise<TServerConfig> {
    return this.serverSettings.serverConfig();
  }

  /** Saves the configuration; the setup wizard's configuration step is done from then on. */
  async updateServerConfig(input: TServerConfig): Promise<TServerConfig> {
    const config = checkServerConfig(input);
    await this.serverSettings.setServerConfig(config);
    await this.settings.set(setupSettingKeys.serverConfiguration, new Date().toISOString());
    return this.serverSettings.serverConfig();
  }

  async addons(): Promise<TAddonList> {
    return { data: await this.serverSettings.addons() };
  }

  /** Switches the named addons; all names are checked before any switch moves. */
  async updateAddons(changes: TAddon[]): Promise<TAddonList> {
    const installed = await this.licence.installed();
    const errors = new ErrorCollector();
    changes.forEach((change, index) => {
      if (!(addonNames as readonly string[]).includes(change.name)) errors.add('addonNotFound', `data.${index}.name`);
      else if (change.enabled && installed && !installed.terms.addons.includes(change.name as TAddonName)) {
        errors.add('addonNotLicensed', `data.${index}.name`);
      }
    });
    errors.throwIfAny();
    for (const change of changes) await this.serverSettings.setAddon(change.name as TAddonName, change.enabled);
    return this.addons();
  }
}
