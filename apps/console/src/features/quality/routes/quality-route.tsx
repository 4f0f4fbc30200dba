import { Anchor, Badge, Button, Card, Group, Select, SimpleGrid, Stack, Table, Tabs, Text } from '@mantine/core';
import type { TQualityPart } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../../components/data-table';
import { filterErrors, wrongDays } from '../../../components/filter-errors';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { useLatestSearchParams } from '../../../hooks/use-latest-search-params';
import { usePagedSearch, usePageInRange, type PagedSearch } from '../../../hooks/use-paged-search';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { type SearchPartsInput, useSearchParts } from '../api/search-parts';
import { percent, QualityCharts } from '../components/quality-charts';
import { FormGeneralErrors } from '../../../components/form-fields';
import { filterField } from '../../../components/id-inputs';

const pageSize = 10;
const filterNames = ['serialNumber', 'supplier', 'technician', 'dsiId', 'deviceId', 'from', 'to'] as const;
type FilterName = (typeof filterNames)[number];
type Filters = Partial<Record<FilterName, string>> & { state?: 'passed' | 'failed' };
/** The inputs a refusal of the search can name (its `field`). */
const fieldNames = [...filterNames, 'state'] as const;
const dayFilters = ['from', 'to'] as const;
const results = ['failed', 'passed'] as const;
type Result = (typeof results)[number];

function isResult(value: string | null | undefined): value is Result {
  return results.some((result) => result === value);
}

function Figure({ label, value, testId }: { label: string; value: string | number; testId: string }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}

function PartsTable({
  parts,
  caption,
  busy,
  filtered,
}: {
  parts: TQualityPart[];
  caption: string;
  busy: boolean;
  /** The search has filters: an empty list is one with no match. */
  filtered: boolean;
}) {
  const { t } = useTranslation();
  const formatTime = useDateTimeFormat();
  return (
    <DataTable
      caption={caption}
      minWidth={900}
      busy={busy}
      columns={[
        t('quality.serialNumber'),
        t('quality.design'),
        t('quality.machine'),
        t('quality.supplier'),
        t('quality.technician'),
        t('quality.reason'),
        t('quality.inspectedAt'),
        t('common.actions'),
      ]}
      empty={parts.length === 0 ? t(filtered ? 'quality.noMatchParts' : 'quality.emptyParts') : null}
    >
      {parts.map((part) => (
        <Table.Tr key={part.partId} data-part={part.partId}>
          <Table.Td>{part.serialNumber ?? '–'}</Table.Td>
          <Table.Td>{part.package.designName}</Table.Td>
          <Table.Td>{part.device.name}</Table.Td>
          <Table.Td>{part.supplier}</Table.Td>
          <Table.Td>{part.technician}</Table.Td>
          <Table.Td>{part.reason ?? ''}</Table.Td>
          <Table.Td>
            <time dateTime={part.inspectedAt}>{formatTime(part.inspectedAt)}</time>
          </Table.Td>
          <Table.Td>
            <Anchor component={Link} to={`/quality/inspect?partId=${part.partId}`}>
              {t('quality.inspectAgain', { serial: part.serialNumber ?? part.partId })}
            </Anchor>
          </Table.Td>
        </Table.Tr>
      ))}
    </DataTable>
  );
}

/** Quality: supplier health (statistics and charts) over the parts search, with passed and failed tabs. */
export function QualityRoute() {
  const { t } = useTranslation();
  // the filters, the tab and each tab's page in the address; the filters narrow both tabs' lists
  const paging: Record<Result, PagedSearch<FilterName | 'state'>> = {
    failed: usePagedSearch({ pageParam: 'failedPage', filters: fieldNames, alsoResets: ['passedPage'] }),
    passed: usePagedSearch({ pageParam: 'passedPage' }),
  };
  const { state, ...textFilters } = paging.failed.filters;
  const filters: Filters = { ...textFilters, ...(isResult(state) ? { state } : {}) };
  const [params, setParams] = useLatestSearchParams();
  const requestedTab = params.get('tab');
  const tab: Result = isResult(requestedTab) ? requestedTab : 'failed';
  const input: SearchPartsInput = {
    ...filters,
    passed: { pageNum: paging.passed.page, numberOfItems: pageSize },
    failed: { pageNum: paging.failed.page, numberOfItems: pageSize },
  };
  // a filter or the result chosen: an empty list or chart has no match rather than nothing yet
  const filtered = Object.keys(filters).length > 0;
  const search = useSearchParts(input);
  usePageInRange(paging.failed, { data: search.data?.failed, isPlaceholderData: search.isPlaceholderData });
  usePageInRange(paging.passed, { data: search.data?.passed, isPlaceholderData: search.isPlaceholderData });
  const statistics = search.data?.statistics;
  // days the calendar does not have are caught here; the server's refusal of a filter shows on its input
  const [wrongDayFilters, setWrongDayFilters] = useState<FilterName[]>([]);
  const problems = filterErrors(t, search.error, { names: fieldNames, wrongDays: wrongDayFilters });

  return (
    <Stack gap="lg">
      <ListHeader title={t('quality.title')} description={t('quality.description')} />
      <Group>
        <Button component={Link} to="/quality/inspect">
          {t('quality.inspect')}
        </Button>
      </Group>
      <TextFilterForm
        title={t('quality.filters')}
        fields={filterNames.map((name) => filterField(name, t(`quality.filter.${name}`)))}
        applied={filters}
        errors={problems.fields}
        applyLabel={t('quality.apply')}
        clearLabel={t('quality.clear')}
        onApply={(applied) => {
          const wrong = wrongDays(applied, dayFilters);
          setWrongDayFilters(wrong);
          if (wrong.length > 0) return;
          paging.failed.setFilters(applied);
        }}
      >
        <Select
          label={t('quality.filter.state')}
          placeholder={t('quality.filter.anyResult')}
          data={[
            { value: 'passed', label: t('quality.passed') },
            { value: 'failed', label: t('quality.failed') },
          ]}
          value={filters.state ?? null}
          clearable
          error={problems.fields.state}
          onChange={(value) => paging.failed.setFilters({ state: isResult(value) ? value : undefined })}
        />
      </TextFilterForm>
      <FormGeneralErrors errors={problems} />
      {statistics ? (
        <>
          <SimpleGrid cols={{ base: 2, md: 4 }} aria-label={t('quality.figures')}>
            <Figure label={t('quality.inspected')} value={statistics.inspected} testId="quality-inspected" />
            <Figure label={t('quality.passed')} value={statistics.passed} testId="quality-passed" />
            <Figure label={t('quality.failed')} value={statistics.failed} testId="quality-failed" />
            <Figure label={t('quality.passRate')} value={percent(statistics.passRate)} testId="quality-pass-rate" />
          </SimpleGrid>
          <QualityCharts statistics={statistics} filtered={filtered} />
        </>
      ) : null}
      <Tabs
        value={tab}
        onChange={(value) =>
          setParams(
            (latest) => {
              const next = new URLSearchParams(latest);
              if (value === 'passed') next.set('tab', value);
              else next.delete('tab');
              return next;
            },
            { replace: true },
          )
        }
      >
        <Tabs.List>
          <Tabs.Tab value="failed">
            {t('quality.failed')} <Badge color="red.8">{search.data?.failed.totalNumOfItems ?? 0}</Badge>
          </Tabs.Tab>
          <Tabs.Tab value="passed">
            {t('quality.passed')} <Badge color="teal.8">{search.data?.passed.totalNumOfItems ?? 0}</Badge>
          </Tabs.Tab>
        </Tabs.List>
        {results.map((result) => (
          <Tabs.Panel key={result} value={result} pt="md">
            <PartsTable
              parts={search.data?.[result].data ?? []}
              busy={search.isFetching}
              caption={t(`quality.${result}Caption`, { count: search.data?.[result].totalNumOfItems ?? 0 })}
              filtered={filtered}
            />
            <ListPagination
              total={pageCount(search.data?.[result])}
              value={paging[result].page}
              onChange={paging[result].setPage}
            />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
