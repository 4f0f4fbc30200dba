import { z } from 'zod';
import { ZDatabaseType, ZSetupStep } from './enums.js';

export const ZAdminState = z.object({ step: ZSetupStep }).meta({ id: 'AdminState' });
export type TAdminState = z.infer<typeof ZAdminState>;

/** `GET admin/database`: what the server runs on. The password is never reported. */
export const ZDatabaseConfig = z
  .object({
    databaseType: ZDatabaseType,
    databaseHost: z.string().nullable(),
    databasePort: z.number().int().nullable(),
    databaseName: z.string().nullable(),
    databaseUser: z.string().nullable(),
  })
  .meta({ id: 'DatabaseConfig' });
export type TDatabaseConfig = z.infer<typeof ZDatabaseConfig>;

/** `traceVersion`: the version of the Trace function in use; null when there is none. */
export const ZVersion = z.object({ manageVersion: z.string(), traceVersion: z.string().nullable() }).meta({ id: 'Version' });
export type TVersion = z.infer<typeof ZVersion>;
