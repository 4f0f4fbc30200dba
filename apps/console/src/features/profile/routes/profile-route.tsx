import { Card, Stack, Title } from '@mantine/core';
import { displayName } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { sessionQueryOptions } from '../../../lib/session';
import { ChangePasswordForm } from '../components/change-password-form';
import { ProfileDetailsForm } from '../components/profile-details-form';
import { SecurityKeysCard } from '../components/security-keys-card';

/** The signed-in user's own profile: details, preferences, password and security keys. */
export function ProfileRoute() {
  const { t } = useTranslation();
  const session = useQuery(sessionQueryOptions());
  const profile = session.data?.userProfile;
  if (!profile) return <PageLoader />;
  return (
    <Stack gap="lg" maw={860}>
      <PageHead title={t('profile.title')} description={t('profile.description')} />
      <Title order={1}>{t('profile.heading', { name: displayName(profile) })}</Title>
      <Card withBorder component="section" aria-labelledby="profile-details-heading">
        <Title order={2} size="h4" id="profile-details-heading" mb="md">
          {t('profile.details')}
        </Title>
        <ProfileDetailsForm profile={profile} />
      </Card>
      <Card withBorder component="section" aria-labelledby="profile-password-heading">
        <Title order={2} size="h4" id="profile-password-heading" mb="md">
          {t('profile.password')}
        </Title>
        <ChangePasswordForm username={profile.username} />
      </Card>
      <SecurityKeysCard />
    </Stack>
  );
}
