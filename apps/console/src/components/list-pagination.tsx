import { Group, Pagination, Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The pages of a list, with translated labels for screen readers; nothing when one page fits. */
export function ListPagination({ total, value, onChange }: { total: number; value: number; onChange: (page: number) => void }) {
  const { t } = useTranslation();
  if (total <= 1) return null;
  return (
    <Pagination
      total={total}
      value={value}
      onChange={onChange}
      getControlProps={(control) => ({ 'aria-label': t(`pagination.${control}`) })}
      getItemProps={(item) => ({ 'aria-label': t('pagination.page', { page: item }) })}
    />
  );
}

const pageSizes = ['10', '25', '50', '100'];

export interface PagingFooterProps {
  totalPages: number;
  pageNum: number;
  onPage: (pageNum: number) => void;
  /** The label of the page size choice. */
  pageSizeLabel: string;
  pageSize: number;
  onPageSize: (pageSize: number) => void;
}

/** Under a list whose page size the user chooses: the pages on the left, the page size on the right. */
export function PagingFooter({ totalPages, pageNum, onPage, pageSizeLabel, pageSize, onPageSize }: PagingFooterProps) {
  return (
    <Group justify="space-between">
      {totalPages > 1 ? <ListPagination total={totalPages} value={Math.min(pageNum, totalPages)} onChange={onPage} /> : <span />}
      <Select
        label={pageSizeLabel}
        data={pageSizes}
        value={String(pageSize)}
        allowDeselect={false}
        w={120}
        onChange={(value) => onPageSize(Number(value ?? 10))}
      />
    </Group>
  );
}
