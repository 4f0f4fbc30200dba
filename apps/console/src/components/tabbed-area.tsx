import { Box, Button, Group, Stack, Title } from '@mantine/core';
import type { RouteKey } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { isScreenOpen, useConsoleConfig } from '../lib/console-config';
import { roleCan, sessionQueryOptions } from '../lib/session';
import { AreaPages } from './page-title';

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

/**
 * An area of several pages: its title, its pages the reader may use as a navigation row, the chosen
 * page below. The row stays one line whatever the width: it scrolls sideways (a link taking the
 * focus is scrolled into view by the browser, and the current page is brought into view on arrival).
 */
export function TabbedArea({ basePath, titleKey, pagesLabelKey, pages }: TabbedAreaProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const session = useQuery(sessionQueryOptions());
  const config = useConsoleConfig();
  const role = session.data?.userProfile.role;
  const shown = pages.filter((page) => roleCan(role, page.requires) && isScreenOpen(config, page.requires));
  const row = useRef<HTMLElement>(null);
  useEffect(() => {
    // the current page's link in view: at a phone's width the later pages start off screen
    row.current?.querySelector<HTMLElement>('[aria-current="page"]')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [pathname]);

  return (
    <Stack gap="lg">
      <Title order={1}>{t(titleKey)}</Title>
      <Box
        component="nav"
        ref={row}
        aria-label={t(pagesLabelKey)}
        data-testid="area-pages"
        style={{ overflowX: 'auto', scrollbarWidth: 'thin' }}
        pb={4}
      >
        <Group gap="xs" wrap="nowrap" w="max-content">
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
      </Box>
      <AreaPages>
        <Outlet />
      </AreaPages>
    </Stack>
  );
}
