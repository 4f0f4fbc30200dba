import { Box, Stack, Table, Text } from '@mantine/core';
import { IconChartBarOff } from '@tabler/icons-react';
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
 * screen readers, the table is what they read. With no rows there is neither: the section says
 * `empty` instead of drawing bare axes and an empty table.
 */
export function ChartSection({
  id,
  title,
  summary,
  chart,
  columns,
  rows,
  empty,
}: {
  id: string;
  title: string;
  summary: string;
  chart: ReactNode;
  columns: string[];
  rows: (string | number)[][];
  /** What the section says when there are no rows (the list's empty or no-match text). */
  empty: string;
}) {
  const { t } = useTranslation();
  return (
    <Section id={id} title={title}>
      {rows.length === 0 ? (
        <Stack align="center" justify="center" gap="xs" mih={160} data-testid={`${id}-empty`}>
          <IconChartBarOff size={32} stroke={1.5} color="var(--mantine-color-dimmed)" aria-hidden />
          <Text c="dimmed" ta="center">
            {empty}
          </Text>
        </Stack>
      ) : (
        <>
          <Box role="img" aria-label={summary} mb="md">
            {chart}
          </Box>
          <DataTable testId={`${id}-table`} caption={t('quality.tableOf', { title })} minWidth={320} columns={columns} compact>
            {rows.map((row) => (
              <Table.Tr key={String(row[0])}>
                {row.map((cell, index) => (
                  <Table.Td key={index}>{cell}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </DataTable>
        </>
      )}
    </Section>
  );
}
