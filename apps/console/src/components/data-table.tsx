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
  const isEmpty = empty !== null && empty !== false && empty !== undefined;
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      // the width the table is seen in, for the empty row's text (`100cqi`); only then, so that a
      // table with rows keeps sizing as before
      style={isEmpty ? { containerType: 'inline-size' } : undefined}
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
          {isEmpty ? (
            <EmptyTableRow colSpan={shown.length} size={inSection ? 'sm' : undefined}>
              {empty}
            </EmptyTableRow>
          ) : null}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The one row of a table with nothing to list. Its text stays in view when the table is wider than
 * the screen (a phone): it is as wide as the table's visible region (`100cqi` of the scroll
 * container) and kept at the region's start while the columns scroll, so it wraps there instead of
 * being centred in the whole table's width, off screen.
 */
function EmptyTableRow({ colSpan, size, children }: { colSpan: number; size?: 'sm'; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan} px={0}>
        <Text
          c="dimmed"
          ta="center"
          size={size}
          px="sm"
          data-testid="table-empty"
          style={{ position: 'sticky', insetInlineStart: 0, width: '100cqi', boxSizing: 'border-box' }}
        >
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
