import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from './error-alert';

export interface ConfirmOptions {
  title: string;
  message: string;
  onConfirm: () => void;
  /** The confirm button's label; "Delete" unless told. */
  confirmLabel?: string;
  /** The confirm button's colour; the destructive red unless told. */
  color?: string;
}

/**
 * The one confirmation modal of the console: a title, a sentence naming what the action does to
 * what, Cancel, and a confirm button (a red "Delete" unless told otherwise).
 */
export function useConfirm() {
  const { t } = useTranslation();
  return ({ title, message, onConfirm, confirmLabel, color = 'red.9' }: ConfirmOptions) =>
    modals.openConfirmModal({
      title,
      children: <Text size="sm">{message}</Text>,
      labels: { confirm: confirmLabel ?? t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color },
      onConfirm,
    });
}

export interface ConfirmDialogProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  message: string;
  /** The server's refusal of the last try, shown above the message. */
  error: string | null;
  confirmLabel: string;
  pending: boolean;
  onConfirm: () => void;
  /** Options of the action (a checkbox), between the message and the buttons. */
  children?: ReactNode;
}

/**
 * The confirmation of a destructive action that has options or can be refused: it stays open
 * while the request runs and shows the refusal in place.
 */
export function ConfirmDialog({
  opened,
  onClose,
  title,
  message,
  error,
  confirmLabel,
  pending,
  onConfirm,
  children,
}: ConfirmDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={title} closeButtonProps={{ 'aria-label': t('common.close') }}>
      <Stack>
        {error ? <ErrorAlert>{error}</ErrorAlert> : null}
        <Text size="sm">{message}</Text>
        {children}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button color="red.9" loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
