import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { DevicesService } from './modules/devices/devices.service.js';
import type { AuthorizationDeliveryService } from './modules/licensing/authorization-delivery.service.js';
import type { AuthorizationsService } from './modules/licensing/authorizations.service.js';
import type { OrderSendersService } from './modules/licensing/order-senders.service.js';
import type { OrdersService } from './modules/licensing/orders.service.js';
import type { StpService } from './modules/licensing/stp.service.js';
import type { DeviceTemplatesService } from './modules/packages/device-templates.service.js';
import type { PackageFilesService } from './modules/packages/package-files.service.js';
import type { PackagesService } from './modules/packages/packages.service.js';
import type { Storage } from './storage/storage.js';
import type { CertificateExchangeService } from './modules/certificate-exchange/certificate-exchange.service.js';
import type { GroupsService } from './modules/groups/groups.service.js';
import type { ProvisionService } from './modules/provision/provision.service.js';
import type { ServerCredentials } from './modules/provision/server-credentials.service.js';
import type { SessionService } from './modules/session/session.service.js';
import type { UsersService } from './modules/users/users.service.js';

/** Everything a route may call; built once in `buildApp`. */
export interface Services {
  config: Config;
  database: Database;
  sessions: SessionService;
  users: UsersService;
  groups: GroupsService;
  storage: Storage;
  packages: PackagesService;
  packageFiles: PackageFilesService;
  deviceTemplates: DeviceTemplatesService;
  devices: DevicesService;
  orders: OrdersService;
  orderSenders: OrderSendersService;
  authorizations: AuthorizationsService;
  authorizationDelivery: AuthorizationDeliveryService;
  stp: StpService;
  /** The server's keys, certificates and trust anchors, for every feature that signs, verifies or decrypts. */
  credentials: ServerCredentials;
  provision: ProvisionService;
  certificateExchange: CertificateExchangeService;
}
