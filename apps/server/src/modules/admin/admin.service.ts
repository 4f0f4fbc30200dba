import { addonNames, type TAddon, type TAddonList, type TAddonName, type TServerConfig } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { LicenceService } from '../licence/licence.service.js';
import type { ServerSettings } from '../settings/server-settings.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { checkServerConfig } from './server-config-rules.js';
import { setupSettingKeys } from './setup-state.js';

/** Server settings and addons (docs/administration.md). */
export class AdminService {
  constructor(
    private readonly database: Database,
    private readonly serverSettings: ServerSettings,
    private readonly licence: LicenceService,
  ) {}

  serverConfig(): Promise<TServerConfig> {
    return this.serverSettings.serverConfig();
  }

  /** Saves the configuration; the setup wizard's configuration step is done from then on. */
  async updateServerConfig(input: TServerConfig, caller: Caller): Promise<TServerConfig> {
    const config = checkServerConfig(input);
    const before = await this.serverSettings.serverConfig();
    await this.database.transaction(async (trx) => {
      const settings = new SettingsRepository(trx);
      await this.serverSettings.setServerConfig(config, settings);
      await settings.set(setupSettingKeys.serverConfiguration, isoNow());
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'serverSettingsChanged', 'server', {
        before,
        after: config,
      });
    });
    return this.serverSettings.serverConfig();
  }

  async addons(): Promise<TAddonList> {
    return { data: await this.serverSettings.addons() };
  }

  /** Switches the named addons; all names are checked before any switch moves. */
  async updateAddons(changes: TAddon[], caller: Caller): Promise<TAddonList> {
    const installed = await this.licence.installed();
    const errors = new ErrorCollector();
    changes.forEach((change, index) => {
      if (!(addonNames as readonly string[]).includes(change.name)) errors.add('addonNotFound', `data[${index}].name`);
      else if (change.enabled && installed && !installed.terms.addons.includes(change.name as TAddonName)) {
        errors.add('addonNotLicensed', `data[${index}].name`);
      }
    });
    errors.throwIfAny();
    await this.database.transaction(async (trx) => {
      const settings = new SettingsRepository(trx);
      for (const change of changes) await this.serverSettings.setAddon(change.name as TAddonName, change.enabled, settings);
      if (changes.length > 0)
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'addonsChanged', 'addons', { changes });
    });
    return this.addons();
  }
}
