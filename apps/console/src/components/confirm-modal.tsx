import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useTranslation } from 'react-i18next';

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
