import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The Cancel and submit buttons at the foot of a modal form; the submit button says Save unless `submitLabel` is given. */
export function FormButtons({
  onCancel,
  pending,
  submitLabel,
}: {
  onCancel: () => void;
  pending: boolean;
  submitLabel?: string;
}) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {submitLabel ?? t('common.save')}
      </Button>
    </Group>
  );
}
