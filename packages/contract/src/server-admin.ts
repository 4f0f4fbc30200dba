/**
 * Server administration (spec §2 admin settings, §3 Server config, Addon, §7 Admin, §8): the
 * site's name and address, the Manage and Trace switches, the addons, the operating licence.
 * Merged into `manifoldErrorTokens` and `permissions` (docs/administration.md).
 */
import { z } from 'zod';

/** Spec §3 Server config. `serverSiteName` is the brand; `serverUrl` the address peers are given. */
export const ZServerConfig = z
  .object({
    serverSiteName: z.string(),
    serverUrl: z.string(),
    manageEnabled: z.boolean(),
    traceEnabled: z.boolean(),
  })
  .meta({ id: 'ServerConfig' });
export type TServerConfig = z.infer<typeof ZServerConfig>;

/** Longest site name (it goes into certificate subjects, whose organisation name allows 64). */
export const SITE_NAME_MAX_LENGTH = 64;

/** Whether `text` holds a control character (Unicode Cc: C0 controls, DEL, C1 controls) anywhere. */
export function hasControlCharacter(text: string): boolean {
  return /\p{Cc}/u.test(text);
}

/**
 * A site name as it is kept: one line (no control character, Unicode Cc, anywhere: a line break
 * would reach page titles, certificate subjects and peers' registrations) of 1 to
 * {@link SITE_NAME_MAX_LENGTH} characters once trimmed.
 */
export function isSiteName(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= SITE_NAME_MAX_LENGTH && !hasControlCharacter(text);
}

/**
 * The optional parts of the server (spec §2 "addons", §4 "Addons: toggled enabled or
 * disabled"): the design archive (DAS), quality (QMS) and the secure repository.
 */
export const addonNames = ['designArchive', 'quality', 'secureRepository'] as const;
export type TAddonName = (typeof addonNames)[number];

export const ZAddon = z.object({ name: z.string(), enabled: z.boolean() }).meta({ id: 'Addon' });
export type TAddon = z.infer<typeof ZAddon>;
export const ZAddonList = z.object({ data: z.array(ZAddon) }).meta({ id: 'AddonList' });
export type TAddonList = z.infer<typeof ZAddonList>;

/** The two functions of spec §3 Server config and the addons: what a route may belong to. */
export type TGateName = 'manage' | 'trace' | TAddonName;

/** The token a call of a switched-off function or addon answers. */
export const gateTokens = {
  manage: 'manageFunctionalityNotEnabled',
  trace: 'traceFuncitionalityNotEnabled',
  designArchive: 'addonNotEnabled',
  quality: 'addonNotEnabled',
  secureRepository: 'addonNotEnabled',
} as const satisfies Record<TGateName, string>;

/**
 * Which function or addon a route belongs to: a path ending in `/` covers every route under
 * it, any other path that route alone. The most specific row wins. The server refuses the calls
 * of a switched-off gate here (one hook) and the console hides screens built on them. Paths are
 * spec §7's; a module adding routes under one of these is covered without further work.
 */
export const routeGates: readonly { path: string; gate: TGateName }[] = [
  // Manage: orders and licences, machine data, the Trace event queue, peer registrations
  { path: '/ui/order/', gate: 'manage' },
  { path: '/ui/authorization/', gate: 'manage' },
  { path: '/ui/dtl/', gate: 'manage' },
  { path: '/ui/enforce/order/', gate: 'manage' },
  { path: '/ui/queue/', gate: 'manage' },
  { path: '/ui/manage/', gate: 'manage' },
  { path: '/ui/trace/', gate: 'manage' },
  { path: '/ui/protect/', gate: 'manage' },
  { path: '/apl/order/add', gate: 'manage' },
  { path: '/stp/order/', gate: 'manage' },
  { path: '/stp/authorization/', gate: 'manage' },
  { path: '/stp/design/', gate: 'manage' },
  { path: '/stp/upload/', gate: 'manage' },
  { path: '/fss/', gate: 'manage' },
  // Trace: events, builds and parts, trace parameters
  { path: '/ui/event/', gate: 'trace' },
  { path: '/ui/build/', gate: 'trace' },
  { path: '/ui/part/', gate: 'trace' },
  { path: '/ui/svp/', gate: 'trace' },
  { path: '/ui/svp-value/', gate: 'trace' },
  { path: '/ui/svp-type/', gate: 'trace' },
  { path: '/apl/event', gate: 'trace' },
  { path: '/stp/event', gate: 'trace' },
  // addons
  { path: '/ui/das/', gate: 'designArchive' },
  { path: '/ui/qms/', gate: 'quality' },
  { path: '/ui/secure-repo/', gate: 'secureRepository' },
];

/** The function or addon a route (its URL pattern, e.g. `/ui/order/list`) belongs to, if any. */
export function gateOf(routeUrl: string): TGateName | undefined {
  let best: { path: string; gate: TGateName } | undefined;
  for (const row of routeGates) {
    const matches = row.path.endsWith('/') ? routeUrl.startsWith(row.path) : routeUrl === row.path;
    if (matches && (!best || row.path.length > best.path.length)) best = row;
  }
  return best?.gate;
}

/** Whether a route is open given the gates switched off (undefined gate: always open). */
export function isRouteOpen(routeUrl: string, closedGates: readonly TGateName[]): boolean {
  const gate = gateOf(routeUrl);
  return gate === undefined || !closedGates.includes(gate);
}

/** Limits a licence sets; a missing limit is no limit. */
export const ZLicenceLimits = z.object({
  machines: z.number().int().nonnegative().optional(),
  peerInstances: z.number().int().nonnegative().optional(),
});
export type TLicenceLimits = z.infer<typeof ZLicenceLimits>;

/** The signed content of an operating licence file (docs/administration.md). */
export const ZLicenceDocument = z.object({
  licenceId: z.string().min(1).max(128),
  holder: z.string().min(1).max(256),
  validFrom: z.iso.datetime({ offset: true }),
  validUntil: z.iso.datetime({ offset: true }),
  limits: ZLicenceLimits,
  addons: z.array(z.enum(addonNames)),
});
export type TLicenceDocument = z.infer<typeof ZLicenceDocument>;

const ZUsage = z.object({ used: z.number().int(), limit: z.number().int().nullable() });

/** `GET admin/licensing/status`. */
export const ZLicensingStatus = z
  .object({
    installed: z.boolean(),
    /** The configured publisher certificate's subject; null when none is configured. */
    publisher: z.string().nullable(),
    licence: z
      .object({
        licenceId: z.string(),
        holder: z.string(),
        validFrom: z.string(),
        validUntil: z.string(),
        addons: z.array(z.string()),
        installedAt: z.string(),
      })
      .nullable(),
    /** `valid`, `expiring` (within the warning window), `expired`, or `none` (no licence). */
    state: z.enum(['none', 'valid', 'expiring', 'expired']),
    daysLeft: z.number().int().nullable(),
    usage: z.object({ machines: ZUsage, peerInstances: ZUsage }),
  })
  .meta({ id: 'LicensingStatus' });
export type TLicensingStatus = z.infer<typeof ZLicensingStatus>;

/** Days before expiry the status starts warning. */
export const LICENCE_WARNING_DAYS = 30;

/** `GET admin/blockchain/provider` and its list: this server has no blockchain provider. */
export const ZBlockchainProvider = z
  .object({ identifier: z.string().nullable(), configured: z.boolean() })
  .meta({ id: 'BlockchainProvider' });
export const ZBlockchainProviderList = z.object({ data: z.array(z.string()) }).meta({ id: 'BlockchainProviderList' });

export const serverAdminErrorTokens = {
  serverSiteNameEmpty: 'The site name is required (one line of at most 64 characters, without control characters)',
  serverUrlInvalid: 'The server address must be an absolute http or https URL without credentials, query or fragment',
  addonNotEnabled: 'This addon is not enabled on this server',
  addonNotLicensed: 'The installed licence does not include this addon',
  licencePublisherNotConfigured: 'No licence publisher certificate is configured (LICENCE_PUBLISHER_CERT)',
  licenceInvalid: 'The file is not a licence signed by the configured publisher',
  licenceExpired: 'The licence has expired or is not yet valid',
  licenceMachineLimitReached: 'The licence allows no more machines',
  licencePeerInstanceLimitReached: 'The licence allows no more peer instances',
} as const;
