import type { Core, ServerModule } from '../module.js';
import { usersRoutes } from './users.routes.js';
import { UsersService } from './users.service.js';

/** Also creates the first ADMIN on an empty database (spec's runtime contract). */
export async function usersModule({ config, database, log }: Core): Promise<ServerModule<{ users: UsersService }>> {
  const users = new UsersService(
    database,
    { username: config.adminUsername, password: config.adminPassword, dataDir: config.dataDir },
    log,
  );
  await users.ensureInitialAdmin();
  return { services: { users }, routes: [usersRoutes] };
}
