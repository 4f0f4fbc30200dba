import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCertificate } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { useCreateDevelopmentCa } from '../api/create-development-ca';
import { useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';

/** DEVELOPMENT ONLY: shown when the server runs with DEVELOPMENT_CA=true. */
export function DevelopmentCa({ provisioned }: { provisioned: boolean }) {
  const { t } = useTranslation();
  const confirmIssue = useConfirm();
  const create = useCreateDevelopmentCa();
  const [error, setError] = useState<string | null>(null);

  const confirm = () => {
    confirmIssue({
      title: t('setup.developmentCa.confirmTitle'),
      message: t('setup.developmentCa.confirm'),
      confirmLabel: t('setup.developmentCa.issue'),
      onConfirm: () => {
        setError(null);
        create.mutate(undefined, {
          onSuccess: () => alerts.success(t('setup.developmentCa.issued')),
          onError: (failure) => setError(apiErrorMessage(t, failure)),
        });
      },
    });
  };

  return (
    <Stack>
      <Alert
        color="orange"
        variant="light"
        icon={<IconAlertTriangle size={18} aria-hidden />}
        title={
          <Text span fw={700} size="sm" c="var(--manifold-text)">
            {t('setup.developmentCa.badge')}
          </Text>
        }
      >
        <Text size="sm">{t('setup.developmentCa.warning')}</Text>
      </Alert>
      {error ? <ErrorAlert>{error}</ErrorAlert> : null}
      <Group>
        <Button
          variant="default"
          disabled={!provisioned}
          loading={create.isPending}
          // the warning colour only on a button that can be pressed (a disabled one is grey throughout)
          leftSection={
            <IconCertificate size={16} color={provisioned ? 'var(--mantine-color-orange-7)' : 'currentColor'} aria-hidden />
          }
          onClick={confirm}
        >
          {t('setup.developmentCa.issue')}
        </Button>
        {!provisioned ? (
          <Text size="sm" c="dimmed">
            {t('setup.developmentCa.needsKeys')}
          </Text>
        ) : null}
      </Group>
    </Stack>
  );
}
