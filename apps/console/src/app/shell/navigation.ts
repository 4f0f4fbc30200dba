import type { RouteKey, TRole } from '@manifold/contract';
import { canCall } from '@manifold/contract';
import {
  IconActivity,
  IconAdjustments,
  IconArchive,
  IconBox,
  IconChartBar,
  IconClipboardCheck,
  IconClipboardList,
  IconCloudDataConnection,
  IconDatabase,
  IconFingerprint,
  IconHome,
  IconLicense,
  IconListSearch,
  IconLock,
  IconMailForward,
  IconNetwork,
  IconPackage,
  IconPlugConnected,
  IconPrinter,
  IconRuler2,
  IconSettings,
  IconShieldCheck,
  IconShieldLock,
  IconStack2,
  IconStackPush,
  IconTopologyStar3,
  IconUserCircle,
  IconUsers,
  IconUsersGroup,
  type Icon,
} from '@tabler/icons-react';
import { getConsoleConfig, isScreenOpen, type TConsoleConfig } from '../../lib/console-config';

/** The headed parts of the navigation, in their order; the first entries (home, profile) have none. */
export const navigationSections = [
  'licensing',
  'traceability',
  'quality',
  'supplyChain',
  'secureRepository',
  'administration',
] as const;
export type NavigationSection = (typeof navigationSections)[number];

export interface NavigationItem {
  to: string;
  labelKey: string;
  icon: Icon;
  /** The call a screen is built on: the permission table decides who sees it. */
  requires: RouteKey;
  /** The heading it is listed under (`nav.sections.<section>`); none for the first entries. */
  section?: NavigationSection;
}

/** A section's entries, each marked with it. */
function inSection(section: NavigationSection, items: readonly Omit<NavigationItem, 'section'>[]): NavigationItem[] {
  return items.map((item) => ({ ...item, section }));
}

/** Every screen of the navigation, section by section in the order of `navigationSections`. */
export const navigationItems: readonly NavigationItem[] = [
  { to: '/', labelKey: 'nav.home', icon: IconHome, requires: 'GET /ui/version' },
  { to: '/profile', labelKey: 'nav.profile', icon: IconUserCircle, requires: 'POST /ui/user/edit' },
  ...inSection('licensing', [
    { to: '/packages', labelKey: 'nav.packages', icon: IconPackage, requires: 'GET /ui/package/list' },
    { to: '/devices', labelKey: 'nav.devices', icon: IconPrinter, requires: 'GET /ui/device/list' },
    { to: '/orders', labelKey: 'orders.nav', icon: IconClipboardList, requires: 'GET /ui/order/list' },
    { to: '/authorizations', labelKey: 'authorizations.nav', icon: IconLicense, requires: 'GET /ui/authorization/list' },
    { to: '/das', labelKey: 'nav.das', icon: IconArchive, requires: 'GET /ui/das/list' },
  ]),
  ...inSection('traceability', [
    { to: '/events', labelKey: 'nav.events', icon: IconActivity, requires: 'GET /ui/event/list' },
    { to: '/builds', labelKey: 'nav.builds', icon: IconStack2, requires: 'GET /ui/build/list' },
    { to: '/parts', labelKey: 'nav.parts', icon: IconBox, requires: 'GET /ui/part/list' },
    { to: '/machine-data', labelKey: 'nav.machineData', icon: IconDatabase, requires: 'GET /ui/dtl/list' },
    { to: '/audit', labelKey: 'nav.audit', icon: IconListSearch, requires: 'GET /ui/audit/list' },
    { to: '/queue', labelKey: 'queue.nav', icon: IconStackPush, requires: 'GET /ui/queue/list' },
  ]),
  ...inSection('quality', [
    { to: '/quality', labelKey: 'quality.nav', icon: IconChartBar, requires: 'POST /ui/qms/parts/search' },
    { to: '/quality/inspect', labelKey: 'quality.inspectNav', icon: IconClipboardCheck, requires: 'POST /ui/qms/inspection' },
    { to: '/trace-parameters', labelKey: 'svp.nav', icon: IconRuler2, requires: 'POST /ui/svp/add' },
  ]),
  ...inSection('supplyChain', [
    { to: '/network', labelKey: 'network.nav', icon: IconTopologyStar3, requires: 'GET /ui/manage/list' },
    { to: '/outbox', labelKey: 'outbox.nav', icon: IconMailForward, requires: 'GET /ui/admin/outbox' },
  ]),
  ...inSection('secureRepository', [
    { to: '/secure-files', labelKey: 'secureFiles.nav', icon: IconLock, requires: 'GET /ui/secure-repo/list' },
    { to: '/access-policies', labelKey: 'nav.accessPolicies', icon: IconNetwork, requires: 'GET /ui/access-control/list' },
    { to: '/access-roles', labelKey: 'nav.accessRoles', icon: IconShieldLock, requires: 'GET /ui/access-role/list' },
  ]),
  ...inSection('administration', [
    { to: '/users', labelKey: 'nav.users', icon: IconUsers, requires: 'POST /ui/user/add' },
    { to: '/groups', labelKey: 'nav.groups', icon: IconUsersGroup, requires: 'POST /ui/groups/add' },
    { to: '/storage', labelKey: 'nav.storage', icon: IconCloudDataConnection, requires: 'POST /ui/admin/storage/provider' },
    { to: '/setup', labelKey: 'nav.setup', icon: IconSettings, requires: 'GET /ui/admin/database' },
    { to: '/settings', labelKey: 'nav.settings', icon: IconAdjustments, requires: 'POST /ui/admin/server' },
    { to: '/identity-providers', labelKey: 'identity.providers.nav', icon: IconFingerprint, requires: 'GET /ui/admin/sso' },
    {
      to: '/authentication-servers',
      labelKey: 'identity.issuers.nav',
      icon: IconShieldCheck,
      requires: 'GET /ui/authentication/list',
    },
    { to: '/clients', labelKey: 'identity.clients.nav', icon: IconPlugConnected, requires: 'GET /ui/client/list' },
  ]),
];

/** A run of entries under one heading (none for the first entries), as the navigation shows them. */
export interface NavigationGroup {
  section: NavigationSection | undefined;
  items: NavigationItem[];
}

/** `items` (in the table's order) cut where their section changes; a section none of them is in shows no heading. */
export function navigationGroups(items: readonly NavigationItem[]): NavigationGroup[] {
  const groups: NavigationGroup[] = [];
  for (const item of items) {
    const last = groups.at(-1);
    if (last && last.section === item.section) last.items.push(item);
    else groups.push({ section: item.section, items: [item] });
  }
  return groups;
}

/**
 * The screens a role may use, from the contract's permission table (spec §6), leaving out those
 * of a function or addon the server has switched off.
 */
export function navigationFor(role: TRole | undefined, config: TConsoleConfig = getConsoleConfig()): NavigationItem[] {
  return navigationItems.filter((item) => canCall(role, item.requires) && isScreenOpen(config, item.requires));
}

/**
 * The entry of the page at `pathname`: the one whose address is the page's or a folder of it, the
 * longest such (`/quality/inspect` is "Inspect a part", not also "Quality").
 */
export function activeNavigationTo(items: readonly Pick<NavigationItem, 'to'>[], pathname: string): string | undefined {
  let active: string | undefined;
  for (const { to } of items) {
    const matches = to === '/' ? pathname === '/' : pathname === to || pathname.startsWith(`${to}/`);
    if (matches && (active === undefined || to.length > active.length)) active = to;
  }
  return active;
}

/** The call a route's screen needs, for its loader guard. */
export function screenRequirement(to: string): RouteKey {
  const item = navigationItems.find((candidate) => candidate.to === to);
  if (!item) throw new Error(`No navigation item for ${to}`);
  return item.requires;
}
