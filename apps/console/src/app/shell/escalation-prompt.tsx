import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/error-alert';
import { useEscalationPrompt } from '../../hooks/use-escalation-prompt';

/** Asks for a security-key confirmation when an action needs an escalated session (mounted once in the layout). */
export function EscalationPrompt() {
  const { t } = useTranslation();
  const prompt = useEscalationPrompt();
  return (
    <Modal
      opened={prompt.opened}
      onClose={prompt.close}
      title={t('escalation.title')}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack gap="md">
        {prompt.error ? <ErrorAlert>{prompt.error}</ErrorAlert> : null}
        <Text size="sm">{t('escalation.message')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={prompt.close}>
            {t('common.cancel')}
          </Button>
          <Button leftSection={<IconKey size={16} aria-hidden />} loading={prompt.pending} onClick={prompt.confirm}>
            {t('escalation.confirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
