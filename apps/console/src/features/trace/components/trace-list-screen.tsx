import { Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { ErrorAlert } from '../../../components/error-alert';
import { ListHeader } from '../../../components/list-header';
import { PagingFooter } from '../../../components/list-pagination';
import { TextFilterForm } from '../../../components/text-filter-form';
import { pageCount } from '../../../lib/paging';
import type { ListState } from './list-params';

export interface TraceListScreenProps<TFilter extends string> {
  title: string;
  description: string;
  /** The list in the address (`useListParams`). */
  list: {
    state: ListState<TFilter>;
    update: (change: { [name: string]: string | number | undefined }) => void;
    page: (pageNum: number) => void;
  };
  /** The text filters, applied together. */
  textFilters: readonly { name: TFilter; label: string }[];
  /** Filters that apply at once, above the text filters. */
  controls?: ReactNode;
  /** The page shown (for its page count) and its request's error. */
  result: { data?: { totalNumOfPages: number } | undefined; error: unknown };
  /** The table of the page. */
  children: ReactNode;
}

/** A trace list screen: heading, filters, the error if any, the table and the paging under it. */
export function TraceListScreen<TFilter extends string>({
  title,
  description,
  list,
  textFilters,
  controls,
  result,
  children,
}: TraceListScreenProps<TFilter>) {
  const { t } = useTranslation();
  return (
    <Stack gap="lg">
      <ListHeader title={title} description={description} />
      {controls}
      <TextFilterForm
        title={t('trace.filters.title')}
        fields={textFilters}
        applied={list.state}
        onApply={list.update}
        applyLabel={t('trace.filters.apply')}
        clearLabel={t('trace.filters.clear')}
      />
      {result.error ? <ErrorAlert>{apiErrorMessage(t, result.error)}</ErrorAlert> : null}
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
