import { Table, Text } from '@mantine/core';
import { Fragment, type ReactNode } from 'react';

export interface DataTableProps {
  /** The table's `data-testid`. */
  testId?: string;
  /** Caption read by screen readers and shown under the table. */
  caption: string;
  /** Below this width the table scrolls sideways. */
  minWidth: number;
  /**
   * The column headers in order: a text is a plain column header, an element (a sorting header)
   * stands as given; null or false leaves the column out.
   */
  columns: readonly ReactNode[];
  /** Rows, one `Table.Tr` each. */
  children: ReactNode;
  /** The text of the one row shown when there is nothing to list; nothing when null, false or absent. */
  empty?: ReactNode;
  /** A request for the rows is under way. */
  busy?: boolean;
  /**
   * A table inside a section of a detail screen: rows do not highlight under the pointer and the
   * empty text is small. Otherwise a screen's main list.
   */
  compact?: boolean;
  /** A bordered reference table (not striped) inside a section; implies `compact`. */
  bordered?: boolean;
}

/** A table of rows with its caption, column headers and the row saying there is nothing to list. */
export function DataTable({ testId, caption, minWidth, columns, children, empty, busy, compact, bordered }: DataTableProps) {
  const inSection = compact === true || bordered === true;
  const shown = columns.filter((column) => column !== null && column !== false && column !== undefined);
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      // a table wider than the screen scrolls sideways: the keyboard reaches it too (WCAG 2.1.1)
      scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': caption } }}
    >
      <Table
        striped={bordered !== true}
        withTableBorder={bordered}
        highlightOnHover={!inSection}
        aria-busy={busy}
        data-testid={testId}
      >
        <Table.Caption>{caption}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {shown.map((column, index) =>
              typeof column === 'string' ? (
                <Table.Th key={index} scope="col">
                  {column}
                </Table.Th>
              ) : (
                <Fragment key={index}>{column}</Fragment>
              ),
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {children}
          {empty !== null && empty !== false && empty !== undefined ? (
            <EmptyTableRow colSpan={shown.length} size={inSection ? 'sm' : undefined}>
              {empty}
            </EmptyTableRow>
          ) : null}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The one row of a table with nothing to list. */
export function EmptyTableRow({ colSpan, size, children }: { colSpan: number; size?: 'sm'; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <Text c="dimmed" ta="center" size={size}>
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
