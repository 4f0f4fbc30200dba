import { Button, Group, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { isScreenOpen, useConsoleConfig } from '../../lib/console-config';
import { roleCan, sessionQueryOptions } from '../../lib/session';
import { settingsPages } from '../settings-pages';

/** The settings area: its pages as a navigation row, the chosen page below. */
export function SettingsLayout() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const session = useQuery(sessionQueryOptions());
  const config = useConsoleConfig();
  const role = session.data?.userProfile.role;
  const pages = settingsPages.filter((page) => roleCan(role, page.requires) && isScreenOpen(config, page.requires));

  return (
    <Stack gap="lg">
      <Title order={1}>{t('settings.title')}</Title>
      <Group component="nav" aria-label={t('settings.pagesLabel')} gap="xs">
        {pages.map((page) => {
          const to = `/settings/${page.path}`;
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
