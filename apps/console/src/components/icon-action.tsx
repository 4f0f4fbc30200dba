import { ActionIcon, Tooltip } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';

export interface IconActionProps {
  /** The tooltip: the action's short name ("Delete"). */
  tooltip: string;
  /** The accessible name: the action and the row it acts on ("Delete file a.stl"). */
  label: string;
  icon: Icon;
  color?: string;
  disabled?: boolean;
  loading?: boolean;
  onClick: () => void;
  /** The id of the text that says why the action is unavailable (with `disabled`). */
  describedBy?: string;
}

/** A small icon button of a row or card with its tooltip; the label names what it acts on for screen readers. */
export function IconAction({
  tooltip,
  label,
  icon: ActionIconGlyph,
  color = 'gray',
  disabled,
  loading,
  onClick,
  describedBy,
}: IconActionProps) {
  return (
    <Tooltip label={tooltip}>
      <ActionIcon
        variant="subtle"
        color={color}
        disabled={disabled}
        loading={loading}
        aria-label={label}
        aria-describedby={describedBy}
        onClick={onClick}
      >
        <ActionIconGlyph size={16} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}
