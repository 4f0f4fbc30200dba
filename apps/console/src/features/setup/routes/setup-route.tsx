import { Badge, Button, Card, Group, Stack, Stepper, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { setupSteps, type TSetupStep } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { useAdminState } from '../api/get-admin-state';
import { CryptoSteps } from '../components/crypto-steps';
import { DatabaseStep } from '../components/database-step';
import { StorageProviderForm } from '../components/storage-provider-form';
import { ErrorAlert } from '../../../components/error-alert';
import { ServerSettingsForm } from '../components/server-settings-form';
import { stateText } from '../../../app/theme';

type StepStatus = 'done' | 'current' | 'pending';

function statusOf(step: TSetupStep, current: TSetupStep): StepStatus {
  const index = setupSteps.indexOf(step);
  const currentIndex = setupSteps.indexOf(current);
  if (index < currentIndex) return 'done';
  return index === currentIndex ? 'current' : 'pending';
}

const statusColors: Record<StepStatus, string> = { done: 'green', current: 'blue', pending: 'gray' };

/** Setup wizard (spec §2): the steps in order, where the server stands taken from admin/state. */
export function SetupRoute() {
  const { t } = useTranslation();
  const state = useAdminState();

  if (state.error) {
    return <ErrorAlert>{apiErrorMessage(t, state.error)}</ErrorAlert>;
  }
  if (!state.data) return <PageLoader />;
  const current = state.data.step;
  const currentIndex = setupSteps.indexOf(current);

  return (
    <Stack gap="lg" maw={860}>
      <PageHead title={t('setup.title')} description={t('setup.description')} />
      <div>
        <Title order={1}>{t('setup.title')}</Title>
        <Text c="dimmed">{t('setup.intro')}</Text>
      </div>
      <Card withBorder component="section" aria-labelledby="setup-current-heading">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4" id="setup-current-heading">
            {t('setup.currentStep', { step: t(`setup.steps.${current}.label`) })}
          </Title>
          <Badge color="blue" variant="light" c="var(--manifold-info)" data-testid="setup-current-step">
            {t('setup.stepOf', { index: currentIndex + 1, total: setupSteps.length })}
          </Badge>
        </Group>
        <Text size="sm">{t(`setup.steps.${current}.needs`)}</Text>
      </Card>
      <Card withBorder component="section" aria-labelledby="setup-steps-heading">
        <Title order={2} size="h4" id="setup-steps-heading" mb="md">
          {t('setup.allSteps')}
        </Title>
        <Stepper active={currentIndex} orientation="vertical" allowNextStepsSelect={false} color="green">
          {setupSteps.map((step) => {
            const status = statusOf(step, current);
            return (
              <Stepper.Step
                key={step}
                label={t(`setup.steps.${step}.label`)}
                description={
                  <Stack gap={4} component="span">
                    <Text size="sm" component="span">
                      {t(`setup.steps.${step}.needs`)}
                    </Text>
                    <Badge
                      component="span"
                      size="sm"
                      variant="light"
                      color={statusColors[status]}
                      c={stateText(statusColors[status])}
                      data-step={step}
                      data-status={status}
                    >
                      {t(`setup.status.${status}`)}
                    </Badge>
                  </Stack>
                }
                aria-current={status === 'current' ? 'step' : undefined}
              />
            );
          })}
        </Stepper>
      </Card>
      <Card withBorder component="section" aria-labelledby="setup-database-heading">
        <Title order={2} size="h4" id="setup-database-heading" mb="md">
          {t('setup.database.heading')}
        </Title>
        <DatabaseStep />
      </Card>
      <CryptoSteps />
      <Card withBorder component="section" aria-labelledby="setup-storage-heading" data-testid="setup-storage">
        <Title order={2} size="h4" id="setup-storage-heading" mb="md">
          {t('storage.provider.heading')}
        </Title>
        <StorageProviderForm />
      </Card>
      <Card withBorder component="section" aria-labelledby="setup-configuration-heading">
        <Title order={2} size="h4" id="setup-configuration-heading" mb="xs">
          {t('setup.steps.configuration.label')}
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          {t('setup.steps.configuration.needs')}
        </Text>
        <ServerSettingsForm />
      </Card>
      <Card withBorder component="section" aria-labelledby="setup-sso-heading">
        <Title order={2} size="h4" id="setup-sso-heading" mb="xs">
          {t('setup.sso.heading')}
        </Title>
        <Text size="sm" mb="sm">
          {t('setup.sso.text')}
        </Text>
        <Group gap="sm">
          <Button component={Link} to="/identity-providers" variant="default">
            {t('identity.providers.nav')}
          </Button>
          <Button component={Link} to="/authentication-servers" variant="default">
            {t('identity.issuers.nav')}
          </Button>
          <Button component={Link} to="/clients" variant="default">
            {t('identity.clients.nav')}
          </Button>
        </Group>
      </Card>
    </Stack>
  );
}
