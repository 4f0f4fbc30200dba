import { Group } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { IconAction } from './icon-action';

/** The edit and delete buttons of a table row; the labels name the row for screen readers. */
export function EditDeleteActions(props: { editLabel: string; deleteLabel: string; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="nowrap">
      <IconAction tooltip={t('common.edit')} label={props.editLabel} icon={IconPencil} onClick={props.onEdit} />
      <IconAction tooltip={t('common.delete')} label={props.deleteLabel} icon={IconTrash} color="red" onClick={props.onDelete} />
    </Group>
  );
}
