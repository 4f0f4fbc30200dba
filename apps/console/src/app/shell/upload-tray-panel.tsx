import { ActionIcon, Group, Paper, Progress, ScrollArea, Stack, Text } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconTrash, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../components/api-error-message';
import { isApiError } from '../../lib/api-errors';
import { useStore } from '../../lib/store';
import { uploadTray as defaultTray, type UploadDescriptor, type UploadTray, type UploadTrayState } from '../../lib/upload-tray';
import type { TFunction } from 'i18next';

const statusColors = { processing: 'blue', finished: 'green', failed: 'red' } as const;

/** Why an upload failed, translated like every refusal on the screens (the server's text is English). */
function failureReason(t: TFunction, file: UploadDescriptor): string {
  return isApiError(file.failure) ? apiErrorMessage(t, file.failure) : (file.error ?? '');
}

function UploadRow({ file, onDiscard }: { file: UploadDescriptor; onDiscard: () => void }) {
  const { t } = useTranslation();
  const percent = Math.round(file.progress * 100);
  return (
    <Stack gap={4} data-upload-status={file.status}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" truncate fw={500} title={file.name}>
          {file.name}
        </Text>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="sm"
          onClick={onDiscard}
          title={t('uploads.discard')}
          aria-label={t('uploads.discardFile', { name: file.name })}
        >
          <IconTrash size={16} aria-hidden />
        </ActionIcon>
      </Group>
      <Progress
        value={percent}
        color={statusColors[file.status]}
        size="sm"
        aria-label={t('uploads.progressOf', { name: file.name })}
      />
      <Text size="xs" c={file.status === 'failed' ? 'var(--manifold-danger)' : 'dimmed'}>
        {file.status === 'processing'
          ? t('uploads.processing', { percent })
          : file.status === 'finished'
            ? t('uploads.finished')
            : t('uploads.failed', { reason: failureReason(t, file) })}
      </Text>
    </Stack>
  );
}

/** The upload-progress tray (spec §4): shown while it holds files; collapse, discard, close. */
export function UploadTrayPanel({ tray = defaultTray }: { tray?: UploadTray }) {
  const { t } = useTranslation();
  const state = useStore(tray.store);
  if (!state.toggled) return null;
  return <OpenTray tray={tray} state={state} t={t} />;
}

function OpenTray({ tray, state, t }: { tray: UploadTray; state: UploadTrayState; t: TFunction }) {
  const done = state.files.filter((file) => file.status !== 'processing').length;
  const failed = state.files.filter((file) => file.status === 'failed').length;
  return (
    <Paper
      component="section"
      aria-label={t('uploads.title')}
      shadow="md"
      withBorder
      p="sm"
      w={340}
      style={{ position: 'fixed', right: 16, bottom: 16, zIndex: 99 }}
    >
      <Group justify="space-between" mb={state.collapsed ? 0 : 'xs'}>
        <Text fw={600} size="sm" component="h2">
          {failed > 0
            ? t('uploads.summaryWithFailed', { done, total: state.files.length, failed })
            : t('uploads.summary', { done, total: state.files.length })}
        </Text>
        <Group gap={4}>
          <ActionIcon
            variant="subtle"
            color="gray"
            onClick={tray.toggleCollapsed}
            aria-expanded={!state.collapsed}
            aria-label={state.collapsed ? t('uploads.expand') : t('uploads.collapse')}
          >
            {state.collapsed ? <IconChevronUp size={16} aria-hidden /> : <IconChevronDown size={16} aria-hidden />}
          </ActionIcon>
          <ActionIcon variant="subtle" color="gray" onClick={tray.close} aria-label={t('uploads.close')}>
            <IconX size={16} aria-hidden />
          </ActionIcon>
        </Group>
      </Group>
      {state.collapsed ? null : (
        <ScrollArea.Autosize mah={280}>
          <Stack gap="sm">
            {state.files.map((file) => (
              <UploadRow key={file.id} file={file} onDiscard={() => tray.discard(file.id)} />
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Paper>
  );
}
