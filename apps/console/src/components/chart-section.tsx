import { Box, Table } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from './data-table';
import { Section } from './section';

/** A pass rate as a percentage with one decimal, or a dash when nothing was inspected. */
export function percent(rate: number | null): string {
  return rate === null ? '–' : `${(Math.round(rate * 1000) / 10).toFixed(1)} %`;
}

/**
 * One chart and the table of the same numbers: the chart is an image named by its summary for
 * screen readers, the table is what they read.
 */
export function ChartSection({
  id,
  title,
  summary,
  chart,
  columns,
  rows,
}: {
  id: string;
  title: string;
  summary: string;
  chart: ReactNode;
  columns: string[];
  rows: (string | number)[][];
}) {
  const { t } = useTranslation();
  return (
    <Section id={id} title={title}>
      <Box role="img" aria-label={summary} mb="md">
        {chart}
      </Box>
      <DataTable
        testId={`${id}-table`}
        caption={t('quality.tableOf', { title })}
        minWidth={320}
        columns={columns}
        compact
        empty={rows.length === 0 ? t('quality.noData') : null}
      >
        {rows.map((row) => (
          <Table.Tr key={String(row[0])}>
            {row.map((cell, index) => (
              <Table.Td key={index}>{cell}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}
