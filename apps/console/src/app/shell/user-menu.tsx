import { Avatar, Group, Menu, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { displayName, type TUserProfile } from '@manifold/contract';
import { IconCheck, IconLogout, IconMoon, IconSun, IconUserCircle, IconWorld } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { alerts } from '../../lib/alerts';
import { changeLocale, shellLocales, type ShellLocale } from '../../lib/i18n';
import { logout } from '../../lib/session';
import { useStore } from '../../lib/store';
import { changeTheme, themes, themeStore } from '../../lib/theme';

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('');
}

export function UserMenu({ profile }: { profile: TUserProfile }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const theme = useStore(themeStore);
  const name = displayName(profile);
  const current = i18n.language as ShellLocale;

  const switchLocale = (locale: ShellLocale) => {
    changeLocale(locale).catch((error: unknown) => {
      console.error(error);
      alerts.error(t('userMenu.localeFailed'));
    });
  };

  const signOut = async () => {
    await logout(queryClient);
    await navigate('/login');
  };

  return (
    <Menu position="bottom-end" width={220} withinPortal>
      <Menu.Target>
        {/* named by its content, not aria-label: the name shown is then part of the name read out in
            every language (WCAG 2.5.3), and the initials, hidden from assistive technology, are not */}
        <UnstyledButton data-testid="user-menu">
          <Group gap="xs" wrap="nowrap">
            <Avatar color="green" radius="xl" size="sm" aria-hidden>
              {initials(name)}
            </Avatar>
            <Text size="sm" fw={500} visibleFrom="xs" aria-hidden>
              {name}
            </Text>
            <VisuallyHidden>{t('userMenu.open', { name })}</VisuallyHidden>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to="/profile" leftSection={<IconUserCircle size={16} aria-hidden />}>
          {t('userMenu.profile')}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Label>
          <Group gap={6}>
            <IconWorld size={14} aria-hidden />
            {t('userMenu.language')}
          </Group>
        </Menu.Label>
        {shellLocales.map((locale) => (
          <Menu.Item
            key={locale}
            lang={locale}
            onClick={() => switchLocale(locale)}
            rightSection={locale === current ? <IconCheck size={14} aria-hidden /> : null}
            aria-current={locale === current ? 'true' : undefined}
          >
            {t(`locales.${locale}`)}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Label>{t('userMenu.theme')}</Menu.Label>
        {themes.map((name) => (
          <Menu.Item
            key={name}
            onClick={() => changeTheme(name)}
            leftSection={name === 'dark' ? <IconMoon size={16} aria-hidden /> : <IconSun size={16} aria-hidden />}
            rightSection={name === theme ? <IconCheck size={14} aria-hidden /> : null}
            aria-current={name === theme ? 'true' : undefined}
          >
            {t(`themes.${name}`)}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item
          color="var(--manifold-danger)"
          leftSection={<IconLogout size={16} aria-hidden />}
          onClick={() => void signOut()}
        >
          {t('userMenu.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
