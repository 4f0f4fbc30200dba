import { Modal, type MantineSize } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface FormModalProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** A Mantine size, or a width in pixels (a form wider than `xl`). */
  size?: MantineSize | number;
  children: ReactNode;
}

/** The modal around an add or edit form; its close button is labelled for screen readers. */
export function FormModal({ opened, onClose, title, size = 'lg', children }: FormModalProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={size} closeButtonProps={{ 'aria-label': t('common.close') }}>
      {children}
    </Modal>
  );
}
