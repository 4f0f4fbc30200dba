import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { createDatabase, type Database } from './db/database.js';
import { jobsModule, type JobsModule } from './jobs/jobs.module.js';
import { accessControlModule } from './modules/access-control/access-control.module.js';
import { adminModule } from './modules/admin/admin.module.js';
import { auditModule } from './modules/audit/audit.module.js';
import { certificateExchangeModule } from './modules/certificate-exchange/certificate-exchange.module.js';
import { devicesModule } from './modules/devices/devices.module.js';
import { qualityModule } from './modules/quality/quality.module.js';
import { dashboardModule } from './modules/dashboard/dashboard.module.js';
import { eventsModule } from './modules/events/events.module.js';
import { EventQueueService } from './modules/outbox/event-queue.service.js';
import { outboxModule } from './modules/outbox/outbox.module.js';
import { registrationsModule } from './modules/registrations/registrations.module.js';
import { groupsModule } from './modules/groups/groups.module.js';
import { identityModule } from './modules/identity/identity.module.js';
import { licensingModule } from './modules/licensing/licensing.module.js';
import { machineDataModule } from './modules/machine-data/machine-data.module.js';
import type { Core } from './modules/module.js';
import { packagesModule } from './modules/packages/packages.module.js';
import { peerDesignsModule } from './modules/peer-designs/peer-designs.module.js';
import { loadKeyEncryptionKey } from './modules/provision/key-encryption-key.js';
import { KeySealer } from './modules/provision/key-sealer.js';
import { provisionModule } from './modules/provision/provision.module.js';
import { ServerCredentials } from './modules/provision/server-credentials.service.js';
import { securityKeysModule } from './modules/security-keys/security-keys.module.js';
import { secureRepoModule } from './modules/secure-repo/secure-repo.module.js';
import { sessionModule } from './modules/session/session.module.js';
import { LicenceService } from './modules/licence/licence.service.js';
import { ServerSettings } from './modules/settings/server-settings.js';
import { SettingsRepository } from './modules/settings/settings.repository.js';
import { unimplementedModule } from './modules/unimplemented/unimplemented.module.js';
import { usersModule } from './modules/users/users.module.js';
import { registerApiVersion } from './plugins/api-version.js';
import { registerAuth } from './plugins/auth.js';
import { registerFunctionGates } from './plugins/function-gates.js';
import { registerCompression } from './plugins/compression.js';
import { registerConsole } from './plugins/console.js';
import { answerClientError, registerErrorHandling } from './plugins/errors.js';
import { registerMultipart } from './plugins/multipart.js';
import { registerInputHygiene } from './plugins/input-hygiene.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerRequestLimits, serverTimeouts, warnOnForwardingHeaders } from './plugins/request-limits.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { deferredChildLogger } from './plugins/request-logger.js';
import { ServerMetrics, exposeMetrics } from './metrics/metrics.js';
import type { Services } from './services.js';
import { LocalStorage } from './storage/local-storage.js';
import { ProviderStorage } from './storage/provider-storage.js';
import { storageModule } from './modules/storage/storage.module.js';

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Use this database instead of opening the configured one (tests share one per file). */
  database?: Database;
  /** Start the background job runner (`main.ts`: `JOBS_ENABLED`); tests leave it stopped. */
  startJobs?: boolean;
}

/** What every module shares: the database, settings, sealed keys, credentials, file storage. */
async function createCore(config: Config, database: Database, log: Core['log']): Promise<Core> {
  const settings = new SettingsRepository(database.db);
  const sealer = new KeySealer(
    await loadKeyEncryptionKey({ configured: config.keyEncryptionKey, dataDir: config.dataDir }, settings, log),
  );
  const credentials = new ServerCredentials(database, sealer);
  const local = await LocalStorage.open(path.join(config.dataDir, 'storage'));
  const storage = new ProviderStorage(settings, sealer, local);
  const serverSettings = new ServerSettings(settings, { siteName: config.siteName, serverUrl: config.publicUrl });
  await serverSettings.seed();
  const licence = new LicenceService(database, settings, config.licencePublisherPem);
  return { config, database, settings, serverSettings, licence, sealer, credentials, storage, storageProviders: storage, log };
}

/**
 * The server's modules, in dependency order. Adding an area means one factory in
 * `modules/<area>/<area>.module.ts` and one line here (and its rows in the permission table).
 */
export async function createModules(core: Core) {
  const licensing = licensingModule(core);
  const registrations = registrationsModule(core);
  const eventQueue = new EventQueueService(core.database, core.settings);
  const events = eventsModule(core, licensing.services.stp, (trx, rows) => eventQueue.forward(trx, rows));
  const session = await sessionModule(core);
  const accessControl = accessControlModule(core);
  const packages = packagesModule(core, accessControl.services.accessControl);
  const peerDesigns = peerDesignsModule(core, {
    ...registrations.services,
    orders: licensing.services.orders,
    packages: packages.services.packages,
  });
  return [
    adminModule(core),
    session,
    identityModule(core, session.services.sessions),
    securityKeysModule(core),
    accessControl,
    await usersModule(core),
    groupsModule(core),
    provisionModule(core),
    certificateExchangeModule(core),
    packages,
    devicesModule(core, (trx, deviceId) => eventQueue.reportApproval(trx, deviceId)),
    licensing,
    events,
    machineDataModule(core),
    qualityModule(core, events.services.events),
    auditModule(core),
    registrations,
    outboxModule(core, registrations.services.peerRegistrations, eventQueue, {
      ...licensing.services.delegatedLicences.handlers(),
      ...events.services.events.handlers(),
      ...peerDesigns.services.peerTransfers.handlers(),
    }),
    peerDesigns,
    storageModule(core),
    secureRepoModule(core, accessControl.services.accessControl),
    dashboardModule(core),
    unimplementedModule(),
  ] as const;
}

/**
 * The whole server without `listen`: tests boot it with `app.inject`, `main.ts` listens.
 * Opens the database, runs the migrations, creates the first ADMIN on an empty database.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: 1024 * 1024,
    // one hop: the reverse proxy in front. The client's address is the one that proxy saw (the last
    // X-Forwarded-For entry); whatever the client wrote in front of it is never taken — trusting
    // every hop would let any client pick its address past the access controls and login throttling
    trustProxy: config.trustProxy ? (_address: string, hop: number) => hop === 0 : false,
    clientErrorHandler: answerClientError,
    childLoggerFactory: deferredChildLogger,
    ...serverTimeouts(config.timeouts),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const metrics = config.metrics.token !== null || config.metrics.port !== null ? new ServerMetrics() : null;
  const database =
    options.database ??
    createDatabase(config.database, {
      sqliteSynchronous: config.sqliteSynchronous,
      poolSize: config.databasePoolSize,
      ...(metrics ? { onQuery: metrics.observeQuery } : {}),
    });
  let modules: Awaited<ReturnType<typeof createModules>>;
  let jobs: JobsModule;
  try {
    await database.migrate();
    const log = { info: (m: string) => app.log.info(m), warn: (m: string) => app.log.warn(m) };
    const core = await createCore(config, database, log);
    modules = await createModules(core);
    jobs = jobsModule(core, app.log);
    const services = Object.assign({}, core, ...modules.map((module) => module.services)) as Services;
    app.decorate('services', services);
  } catch (error) {
    if (!options.database) await database.close();
    throw error;
  }
  if (!options.database) app.addHook('onClose', () => database.close());
  app.addHook('onClose', () => jobs.runner.stop()); // onClose hooks run last-added first: before the database closes

  registerErrorHandling(app);
  if (metrics) {
    metrics.watchDatabase(database);
    metrics.watchRequests(app);
  }
  await registerSecurityHeaders(app, config.publicUrl);
  registerRequestLimits(app, config.timeouts);
  registerCompression(app);
  if (!config.trustProxy) warnOnForwardingHeaders(app);
  registerApiVersion(app);
  registerInputHygiene(app);
  registerAuth(app);
  registerFunctionGates(app);
  await registerOpenApi(app);
  await registerMultipart(app, config.uploadMaxBytes);
  await exposeMetrics(app, metrics, config.metrics);
  for (const module of [...modules, jobs]) {
    for (const routes of module.routes) await app.register(routes);
  }
  await registerConsole(app, metrics ? { onNotFound: metrics.observeNotFound } : {});
  if (options.startJobs) await jobs.runner.start();
  return app;
}
