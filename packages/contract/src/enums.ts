import { z } from 'zod';

export const roles = ['ADMIN', 'USER'] as const;
export const ZRole = z.enum(roles);
export type TRole = z.infer<typeof ZRole>;

/** Profile languages of spec §3. */
export const profileLanguages = ['en_US', 'fr_FR', 'de_DE', 'it_IT', 'zh_CN', 'es_LA'] as const;
export const ZProfileLanguage = z.enum(profileLanguages);
export type TProfileLanguage = z.infer<typeof ZProfileLanguage>;

/** Setup wizard steps of spec §2, in order. */
export const setupSteps = [
  'database',
  'crypto',
  'signCert',
  'cryptCert',
  'configuration',
  'storage',
  'sso',
  'finished',
  'login',
] as const;
export const ZSetupStep = z.enum(setupSteps);
export type TSetupStep = z.infer<typeof ZSetupStep>;

/** Database types of spec §3; `sqlite` is Manifold's embedded default. */
export const databaseTypes = ['sqlite', 'mysql', 'postgres', 'sqlserver', 'oracle', 'sap', 'h2', 'memory', 'undefined'] as const;
export const ZDatabaseType = z.enum(databaseTypes);
export type TDatabaseType = z.infer<typeof ZDatabaseType>;
/** The types this server can run on; the others are refused at start with a reason. */
export const servedDatabaseTypes = ['sqlite', 'memory', 'mysql', 'postgres'] as const;

export const keyTypes = ['RSA', 'EC'] as const;
export const ZKeyType = z.enum(keyTypes);
export type TKeyType = z.infer<typeof ZKeyType>;

export const services = ['manage', 'trace', 'enforce', 'protect'] as const;
export const ZService = z.enum(services);
export type TService = z.infer<typeof ZService>;

export const csrKinds = ['signing', 'encryption', 'both'] as const;
export const ZCsrKind = z.enum(csrKinds);

export const registrationStates = ['Pending', 'Approved', 'Rejected', 'Suspended', 'Cancelled'] as const;
export const ZRegistrationState = z.enum(registrationStates);

export const sortOrders = ['asc', 'desc'] as const;
export const ZSortOrder = z.enum(sortOrders);
