import type { TSetupStep } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { isoNow } from '../../lib/time.js';
import { CredentialsRepository } from '../provision/credentials.repository.js';
import { SettingsRepository } from '../settings/settings.repository.js';

/**
 * Settings whose presence marks a setup step done. The features that complete a step write
 * them (server settings the configuration, the storage settings the provider). The crypto steps
 * are read from the server's key and certificate tables.
 */
export const setupSettingKeys = {
  serverConfiguration: 'server.configuration',
  storageProvider: 'storage.provider',
} as const;

export interface SetupStepCheck {
  step: Exclude<TSetupStep, 'login'>;
  isComplete(database: Database): Promise<boolean>;
}

const settingExists =
  (key: string) =>
  async (database: Database): Promise<boolean> =>
    (await new SettingsRepository(database.db).get(key)) !== undefined;

const credentials = (database: Database) => new CredentialsRepository(database.db);

/**
 * The wizard's steps in spec order. The first incomplete one is the current step; when all are
 * complete the server is set up and the state is `login`. Single sign-on is optional
 * (docs/identity.md): the server works with local accounts alone, so it never holds setup back.
 */
export const setupStepChecks: SetupStepCheck[] = [
  { step: 'database', isComplete: (database) => database.ping() },
  { step: 'crypto', isComplete: (database) => credentials(database).hasBothKeyPairs() },
  { step: 'signCert', isComplete: (database) => credentials(database).hasValidCertificate('signing', isoNow()) },
  { step: 'cryptCert', isComplete: (database) => credentials(database).hasValidCertificate('encryption', isoNow()) },
  { step: 'configuration', isComplete: settingExists(setupSettingKeys.serverConfiguration) },
  { step: 'storage', isComplete: settingExists(setupSettingKeys.storageProvider) },
  { step: 'sso', isComplete: async () => true },
  { step: 'finished', isComplete: async () => true },
];

export async function currentSetupStep(database: Database, checks: SetupStepCheck[] = setupStepChecks): Promise<TSetupStep> {
  for (const check of checks) {
    if (!(await check.isComplete(database))) return check.step;
  }
  return 'login';
}
