import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { createDatabase, type Database } from './db/database.js';
import { adminRoutes } from './modules/admin/admin.routes.js';
import { certificateExchangeRoutes } from './modules/certificate-exchange/certificate-exchange.routes.js';
import { CertificateExchangeService } from './modules/certificate-exchange/certificate-exchange.service.js';
import { devicesRoutes } from './modules/devices/devices.routes.js';
import { DevicesService } from './modules/devices/devices.service.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { AuthorizationsService } from './modules/licensing/authorizations.service.js';
import { AuthorizationDeliveryService } from './modules/licensing/authorization-delivery.service.js';
import { authorizationsRoutes } from './modules/licensing/authorizations.routes.js';
import { OrderSendersService } from './modules/licensing/order-senders.service.js';
import { orderSendersRoutes } from './modules/licensing/order-senders.routes.js';
import { ordersRoutes } from './modules/licensing/orders.routes.js';
import { SignedAuthorizations } from './modules/licensing/signed-authorization.js';
import { OrdersService } from './modules/licensing/orders.service.js';
import { stpRoutes } from './modules/licensing/stp.routes.js';
import { StpService } from './modules/licensing/stp.service.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { loadKeyEncryptionKey } from './modules/provision/key-encryption-key.js';
import { KeySealer } from './modules/provision/key-sealer.js';
import { provisionRoutes } from './modules/provision/provision.routes.js';
import { ProvisionService } from './modules/provision/provision.service.js';
import { ServerCredentials } from './modules/provision/server-credentials.service.js';
import { DeviceTemplatesService } from './modules/packages/device-templates.service.js';
import { PackageFilesService } from './modules/packages/package-files.service.js';
import { buildsRoutes } from './modules/packages/builds.routes.js';
import { deviceTemplatesRoutes } from './modules/packages/device-templates.routes.js';
import { packageFilesRoutes } from './modules/packages/package-files.routes.js';
import { packagesRoutes } from './modules/packages/packages.routes.js';
import { workflowStepsRoutes } from './modules/packages/workflow-steps.routes.js';
import { PackagesService } from './modules/packages/packages.service.js';
import { LoginThrottle } from './modules/session/login-throttle.js';
import { SessionTokens } from './modules/session/session-tokens.js';
import { sessionRoutes } from './modules/session/session.routes.js';
import { SessionService } from './modules/session/session.service.js';
import { SettingsRepository } from './modules/settings/settings.repository.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { UsersService } from './modules/users/users.service.js';
import { registerApiVersion } from './plugins/api-version.js';
import { registerAuth } from './plugins/auth.js';
import { registerConsole } from './plugins/console.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerMultipart } from './plugins/multipart.js';
import { registerOpenApi } from './plugins/openapi.js';
import type { Services } from './services.js';
import { LocalStorage } from './storage/local-storage.js';

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Use this database instead of opening the configured one (tests share one per file). */
  database?: Database;
}

/**
 * The whole server without `listen`: tests boot it with `app.inject`, `main.ts` listens.
 * Opens the database, runs the migrations, creates the first ADMIN on an empty database.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: 1024 * 1024,
    trustProxy: process.env.TRUST_PROXY === 'true',
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database = options.database ?? createDatabase(config.database);
  try {
    await database.migrate();
    const settings = new SettingsRepository(database.db);
    const tokens = await SessionTokens.load(settings);
    const log = { info: (m: string) => app.log.info(m), warn: (m: string) => app.log.warn(m) };
    const sealer = new KeySealer(
      await loadKeyEncryptionKey({ configured: config.keyEncryptionKey, dataDir: config.dataDir }, settings, log),
    );
    const credentials = new ServerCredentials(database, sealer);
    const storage = await LocalStorage.open(path.join(config.dataDir, 'storage'));
    const users = new UsersService(database);
    await users.ensureInitialAdmin(
      { username: config.adminUsername, password: config.adminPassword, dataDir: config.dataDir },
      log,
    );
    const signedAuthorizations = new SignedAuthorizations(database.db, credentials, config.publicUrl);
    const services: Services = {
      config,
      database,
      users,
      groups: new GroupsService(database),
      sessions: new SessionService(database, config, tokens, new LoginThrottle(config.loginThrottle, database.dialect)),
      credentials,
      provision: new ProvisionService(database, sealer, credentials, {
        siteName: async () => config.siteName,
        developmentCa: config.developmentCa,
      }),
      certificateExchange: new CertificateExchangeService(database, credentials),
      storage,
      packages: new PackagesService(database, storage, credentials, config.publicUrl),
      packageFiles: new PackageFilesService(database, storage, credentials, config.uploadMaxBytes),
      deviceTemplates: new DeviceTemplatesService(database),
      devices: new DevicesService(database, storage, credentials),
      orders: new OrdersService(database, credentials),
      orderSenders: new OrderSendersService(database),
      authorizations: new AuthorizationsService(database, signedAuthorizations),
      authorizationDelivery: new AuthorizationDeliveryService(database),
      stp: new StpService(database, storage, signedAuthorizations),
    };
    app.decorate('services', services);
  } catch (error) {
    if (!options.database) await database.close();
    throw error;
  }
  if (!options.database) app.addHook('onClose', () => database.close());

  registerErrorHandling(app);
  registerApiVersion(app);
  registerAuth(app);
  await registerOpenApi(app);
  await registerMultipart(app, config.uploadMaxBytes);
  await app.register(adminRoutes);
  await app.register(sessionRoutes);
  await app.register(usersRoutes);
  await app.register(groupsRoutes);
  await app.register(provisionRoutes);
  await app.register(certificateExchangeRoutes);
  await app.register(packagesRoutes);
  await app.register(workflowStepsRoutes);
  await app.register(packageFilesRoutes);
  await app.register(deviceTemplatesRoutes);
  await app.register(buildsRoutes);
  await app.register(devicesRoutes);
  await app.register(ordersRoutes);
  await app.register(authorizationsRoutes);
  await app.register(orderSendersRoutes);
  await app.register(stpRoutes);
  await registerConsole(app);
  return app;
}
