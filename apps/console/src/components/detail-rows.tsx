import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** Label and value rows of a detail screen; an empty value shows a dash. */
export function DetailRows({ rows, labelWidth = 200 }: { rows: [string, ReactNode][]; labelWidth?: number }) {
  return (
    <Table variant="vertical" withTableBorder layout="fixed">
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w={labelWidth}>{label}</Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{value === null || value === '' ? '—' : value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
