import type { TSetupStep } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { SettingsRepository } from '../settings/settings.repository.js';

/**
 * Settings whose presence marks a setup step done. The features that complete a step write
 * them (provisioning writes the key pairs and certificates, server settings the configuration,
 * the storage settings the provider).
 */
export const setupSettingKeys = {
  keyPairs: 'crypto.keyPairs',
  signingCertificate: 'crypto.signingCertificate',
  encryptionCertificate: 'crypto.encryptionCertificate',
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

/**
 * The wizard's steps in spec order. The first incomplete one is the current step; when all are
 * complete the server is set up and the state is `login`. SSO is not implemented by the spec
 * (its settings call answers 501), so it never holds setup back.
 */
export const setupStepChecks: SetupStepCheck[] = [
  { step: 'database', isComplete: (database) => database.ping() },
  { step: 'crypto', isComplete: settingExists(setupSettingKeys.keyPairs) },
  { step: 'signCert', isComplete: settingExists(setupSettingKeys.signingCertificate) },
  { step: 'cryptCert', isComplete: settingExists(setupSettingKeys.encryptionCertificate) },
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
