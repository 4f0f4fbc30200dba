import type { Core, ServerModule } from '../module.js';
import { usersRoutes } from './users.routes.js';
import { UsersService } from './users.service.js';

/** Also creates the first ADMIN on an empty database (spec's runtime contract). */
export async function usersModule({ config, database, log }: Core): Promise<ServerModule<{ users: UsersService }>> {
  const users = new UsersService(database);
  await users.ensureInitialAdmin(
    { username: config.adminUsername, password: config.adminPassword, dataDir: config.dataDir },
    log,
  );
  return { services: { users }, routes: [usersRoutes] };
}
