import { ActionIcon, Group, Table, Text, Tooltip } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The edit and delete buttons of a table row; the labels name the row for screen readers. */
export function EditDeleteActions(props: { editLabel: string; deleteLabel: string; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip label={t('common.edit')}>
        <ActionIcon variant="subtle" color="gray" aria-label={props.editLabel} onClick={props.onEdit}>
          <IconPencil size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('common.delete')}>
        <ActionIcon variant="subtle" color="red" aria-label={props.deleteLabel} onClick={props.onDelete}>
          <IconTrash size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

/** The one row of a table with nothing to list. */
export function EmptyTableRow({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <Text c="dimmed" ta="center">
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
