import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The Cancel and Save buttons at the foot of a modal form. */
export function FormButtons({ onCancel, pending }: { onCancel: () => void; pending: boolean }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {t('common.save')}
      </Button>
    </Group>
  );
}
