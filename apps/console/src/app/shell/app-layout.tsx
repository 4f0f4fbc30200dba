import { Anchor, AppShell, Burger, Group, NavLink, ScrollArea, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { ModalsProvider } from '@mantine/modals';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { InvalidSessionError } from '../../lib/api-errors';
import { useConsoleConfig, useConsoleConfigRefresh } from '../../lib/console-config';
import { redirectToLogin } from '../../lib/login-redirect';
import { sessionQueryOptions } from '../../lib/session';
import { scheduleSessionRefresh } from '../../lib/session-refresh';
import { EscalationPrompt } from './escalation-prompt';
import { activeNavigationTo, navigationFor, navigationGroups } from './navigation';
import { UserMenu } from './user-menu';
import '../styles/signed-in';

/** The signed-in layout: header with the user menu, navigation the role may use, content. */
export function AppLayout() {
  const { t } = useTranslation();
  useConsoleConfigRefresh();
  const consoleConfig = useConsoleConfig();
  const { siteName } = consoleConfig;
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const session = useQuery(sessionQueryOptions());

  useEffect(() => {
    if (session.error instanceof InvalidSessionError) redirectToLogin('sessionExpired');
  }, [session.error]);

  useEffect(close, [pathname, close]);

  useEffect(() => scheduleSessionRefresh(), []);

  const profile = session.data?.userProfile;
  const items = navigationFor(profile?.role, consoleConfig);
  const activeTo = activeNavigationTo(items, pathname);

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('layout.toggleNavigation')} />
            <Anchor component={Link} to="/" underline="never" c="inherit">
              <Text fw={700} size="lg">
                {siteName}
              </Text>
            </Anchor>
          </Group>
          {profile ? <UserMenu profile={profile} /> : null}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('layout.navigation')}>
        {/* the entries outgrow a short window: they scroll */}
        <AppShell.Section grow component={ScrollArea}>
          {navigationGroups(items).map(({ section, items: entries }) => {
            const links = entries.map((item) => {
              const active = item.to === activeTo;
              return (
                <NavLink
                  key={item.to}
                  component={Link}
                  to={item.to}
                  label={t(item.labelKey)}
                  leftSection={<item.icon size={18} aria-hidden />}
                  active={active}
                  aria-current={active ? 'page' : undefined}
                  variant="filled"
                />
              );
            });
            if (!section) return links;
            // a named group, not a heading: the page's own headings start at its title
            return (
              <div key={section} role="group" aria-labelledby={`nav-section-${section}`}>
                <Text id={`nav-section-${section}`} size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="md" pb={4}>
                  {t(`nav.sections.${section}`)}
                </Text>
                {links}
              </div>
            );
          })}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <ModalsProvider modalProps={{ closeButtonProps: { 'aria-label': t('common.close') } }}>
          <Outlet />
          <EscalationPrompt />
        </ModalsProvider>
      </AppShell.Main>
    </AppShell>
  );
}
