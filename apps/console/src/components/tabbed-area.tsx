import { Button, Group, Stack, Title } from '@mantine/core';
import type { RouteKey } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { isScreenOpen, useConsoleConfig } from '../lib/console-config';
import { roleCan, sessionQueryOptions } from '../lib/session';

export interface AreaPage {
  /** Path under the area's base path. */
  path: string;
  labelKey: string;
  /** The call the page is built on: the permission table (and the function switches) decide who sees it. */
  requires: RouteKey;
}

export interface TabbedAreaProps {
  /** The area's path (`/settings`). */
  basePath: string;
  titleKey: string;
  /** The accessible name of the row of pages. */
  pagesLabelKey: string;
  pages: readonly AreaPage[];
}

/** An area of several pages: its title, its pages the reader may use as a navigation row, the chosen page below. */
export function TabbedArea({ basePath, titleKey, pagesLabelKey, pages }: TabbedAreaProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const session = useQuery(sessionQueryOptions());
  const config = useConsoleConfig();
  const role = session.data?.userProfile.role;
  const shown = pages.filter((page) => roleCan(role, page.requires) && isScreenOpen(config, page.requires));

  return (
    <Stack gap="lg">
      <Title order={1}>{t(titleKey)}</Title>
      <Group component="nav" aria-label={t(pagesLabelKey)} gap="xs">
        {shown.map((page) => {
          const to = `${basePath}/${page.path}`;
          const active = pathname === to;
          return (
            <Button
              key={page.path}
              component={Link}
              to={to}
              variant={active ? 'filled' : 'subtle'}
              size="sm"
              aria-current={active ? 'page' : undefined}
            >
              {t(page.labelKey)}
            </Button>
          );
        })}
      </Group>
      <Outlet />
    </Stack>
  );
}
