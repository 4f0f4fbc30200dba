import { Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { filterErrors } from '../../../components/filter-errors';
import { ListHeader } from '../../../components/list-header';
import { PagingFooter } from '../../../components/list-pagination';
import { TextFilterForm, type TextFilterFormProps } from '../../../components/text-filter-form';
import { usePageInRange } from '../../../hooks/use-paged-search';
import { pageCount } from '../../../lib/paging';
import type { ListState } from './list-params';
import { FormGeneralErrors } from '../../../components/form-fields';

export interface TraceListScreenProps<TFilter extends string> {
  title: string;
  description: string;
  /** The list in the address (`useListParams`). */
  list: {
    filters: readonly TFilter[];
    state: ListState<TFilter>;
    /** Day filters the address gives a day the calendar lacks (not sent). */
    wrongDays: readonly TFilter[];
    update: (change: { [name: string]: string | number | undefined }) => void;
    page: (pageNum: number, options?: { replace?: boolean }) => void;
  };
  /** The text filters, applied together. */
  textFilters: TextFilterFormProps<TFilter>['fields'];
  /**
   * Filters that apply at once, above the text filters; as a function, given the message under
   * each filter's input (a day the calendar lacks, the server's refusal of the filter).
   */
  controls?: ReactNode | ((errors: Partial<Record<TFilter, string>>) => ReactNode);
  /** The filter each field of the list call that is not named as its filter is about (`from`: `fromDay`). */
  fieldOf?: Readonly<Partial<Record<string, TFilter>>>;
  /** The page shown (for its page count; a page past the end shows the last), and its request's error. */
  result: { data?: { totalNumOfPages: number } | undefined; isPlaceholderData: boolean; error: unknown };
  /** The table of the page. */
  children: ReactNode;
}

/**
 * A trace list screen: heading, filters, the error if any, the table and the paging under it. A
 * day filter's day the calendar lacks, and the server's refusal of the list that names a filter,
 * show under that filter's input; any other failure above the table.
 */
export function TraceListScreen<TFilter extends string>({
  title,
  description,
  list,
  textFilters,
  controls,
  fieldOf,
  result,
  children,
}: TraceListScreenProps<TFilter>) {
  const { t } = useTranslation();
  usePageInRange({ page: list.state.pageNum, setPage: list.page }, result);
  const problems = filterErrors(t, result.error, {
    names: list.filters,
    wrongDays: list.wrongDays,
    ...(fieldOf ? { fieldOf } : {}),
  });
  return (
    <Stack gap="lg">
      <ListHeader title={title} description={description} />
      {typeof controls === 'function' ? controls(problems.fields) : controls}
      <TextFilterForm
        title={t('trace.filters.title')}
        fields={textFilters}
        applied={list.state}
        errors={problems.fields}
        onApply={list.update}
        applyLabel={t('trace.filters.apply')}
        clearLabel={t('trace.filters.clear')}
      />
      <FormGeneralErrors errors={problems} />
      {children}
      <PagingFooter
        totalPages={pageCount(result.data)}
        pageNum={list.state.pageNum}
        onPage={list.page}
        pageSizeLabel={t('trace.pageSize')}
        pageSize={list.state.numberOfItems}
        onPageSize={(numberOfItems) => list.update({ numberOfItems })}
      />
    </Stack>
  );
}
