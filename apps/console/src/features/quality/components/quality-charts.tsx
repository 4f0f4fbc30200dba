import { SimpleGrid } from '@mantine/core';
import type { TGroupCount, TQualityStatistics } from '@manifold/contract';
import { useTranslation } from 'react-i18next';
import { CategoryChart } from '../../../components/category-chart';
import { ChartSection, percent } from '../../../components/chart-section';
import { formatList } from '../../../lib/text-join';

export { percent };

function rateOf(passed: number, failed: number): number | null {
  return passed + failed === 0 ? null : passed / (passed + failed);
}

function GroupChart({ id, title, groups, empty }: { id: string; title: string; groups: TGroupCount[]; empty: string }) {
  const { t } = useTranslation();
  const data = groups.map((group) => ({ label: group.label, passed: group.passed, failed: group.failed }));
  const summary = t('quality.groupSummary', {
    title,
    list:
      formatList(
        t,
        groups.map((group) =>
          t('common.labelled', { label: group.label, text: `${group.failed}/${group.passed + group.failed}` }),
        ),
      ) || t('quality.emptyInspections'),
  });
  return (
    <ChartSection
      id={id}
      title={title}
      summary={summary}
      chart={
        <CategoryChart
          kind="stacked"
          h={220}
          data={data}
          dataKey="label"
          // counts of parts: whole numbers on the axis
          integers
          withLegend
          series={[
            { name: 'passed', label: t('quality.passed'), color: 'teal.7' },
            { name: 'failed', label: t('quality.failed'), color: 'red.8' },
          ]}
        />
      }
      columns={[t('quality.group'), t('quality.passed'), t('quality.failed'), t('quality.passRate')]}
      rows={groups.map((group) => [group.label, group.passed, group.failed, percent(rateOf(group.passed, group.failed))])}
      empty={empty}
    />
  );
}

/**
 * Supplier health: pass rate over time and failures by reason, machine, design and supplier. A chart
 * with nothing to show says so: no inspection yet, or none matching the search's filters (`filtered`).
 */
export function QualityCharts({ statistics, filtered = false }: { statistics: TQualityStatistics; filtered?: boolean }) {
  const { t } = useTranslation();
  const empty = t(filtered ? 'quality.noMatchInspections' : 'quality.emptyInspections');
  const overTime = statistics.overTime.map((day) => {
    const rate = rateOf(day.passed, day.failed);
    return { day: day.day, rate: rate === null ? 0 : Math.round(rate * 1000) / 10, passed: day.passed, failed: day.failed };
  });
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <ChartSection
        id="quality-over-time"
        title={t('quality.overTime')}
        summary={t('quality.overTimeSummary', {
          list:
            formatList(
              t,
              overTime.map((day) => t('common.labelled', { label: day.day, text: `${day.rate} %` })),
            ) || t('quality.emptyInspections'),
        })}
        chart={
          <CategoryChart
            kind="line"
            h={220}
            data={overTime}
            dataKey="day"
            unit=" %"
            max={100}
            series={[{ name: 'rate', label: t('quality.passRate'), color: 'blue.8' }]}
          />
        }
        columns={[t('quality.day'), t('quality.passed'), t('quality.failed'), t('quality.passRate')]}
        rows={statistics.overTime.map((day) => [day.day, day.passed, day.failed, percent(rateOf(day.passed, day.failed))])}
        empty={empty}
      />
      <ChartSection
        id="quality-reasons"
        title={t('quality.byReason')}
        summary={t('quality.groupSummary', {
          title: t('quality.byReason'),
          list:
            formatList(
              t,
              statistics.failuresByReason.map((row) => t('common.labelled', { label: row.reason, text: String(row.failed) })),
            ) || t('quality.emptyInspections'),
        })}
        chart={
          <CategoryChart
            kind="bars"
            h={220}
            data={statistics.failuresByReason}
            dataKey="reason"
            integers
            series={[{ name: 'failed', label: t('quality.failed'), color: 'red.8' }]}
          />
        }
        columns={[t('quality.reason'), t('quality.failed')]}
        rows={statistics.failuresByReason.map((row) => [row.reason, row.failed])}
        empty={empty}
      />
      <GroupChart id="quality-machines" title={t('quality.byMachine')} groups={statistics.byMachine} empty={empty} />
      <GroupChart id="quality-designs" title={t('quality.byDesign')} groups={statistics.byDesign} empty={empty} />
      <GroupChart id="quality-suppliers" title={t('quality.bySupplier')} groups={statistics.bySupplier} empty={empty} />
    </SimpleGrid>
  );
}
