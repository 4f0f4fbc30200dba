import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { ServerCredentials } from './provision/server-credentials.service.js';
import type { KeySealer } from './provision/key-sealer.js';
import type { LicenceService } from './licence/licence.service.js';
import type { ServerSettings } from './settings/server-settings.js';
import type { SettingsRepository } from './settings/settings.repository.js';
import type { ProviderStorage } from '../storage/provider-storage.js';
import type { Storage } from '../storage/storage.js';

/** What the server shares with every module: built once in `buildApp`, before the modules. */
export interface Core {
  config: Config;
  database: Database;
  settings: SettingsRepository;
  /** The site's name, address, Manage/Trace switches and addons: read them only here. */
  serverSettings: ServerSettings;
  /** The operating licence: its limits are checked where machines and peers register. */
  licence: LicenceService;
  /** Seals secrets at rest (private keys, provider credentials) with the key-encryption key. */
  sealer: KeySealer;
  /** The server's keys, certificates and trust anchors, for every feature that signs, verifies or decrypts. */
  credentials: ServerCredentials;
  storage: Storage;
  /** The same storage seen as the provider selection (storage settings, the move job). */
  storageProviders: ProviderStorage;
  log: { info(message: string): void; warn(message: string): void };
}

/**
 * One area of the server: the services its routes (and other modules) call, and its routes.
 * Each `modules/<area>/<area>.module.ts` exports a factory `(core, …dependencies) => ServerModule`;
 * `buildApp` lists the modules and never their insides.
 */
export interface ServerModule<S extends object = object> {
  services: S;
  routes: FastifyPluginAsyncZod[];
}
