import { Anchor, Badge, Stack, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { SearchField } from '../../../components/search-field';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { usePackages } from '../api/get-packages';
import { PackageDetailsForm } from '../components/package-details-form';

const pageSize = 10;

/** Design packages: paged list filtered by name; ADMIN creates them. */
export function PackagesRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const format = useDateTimeFormat();
  const paging = usePagedSearch();
  const { page, setPage, search, setSearch, query } = paging;
  const [creating, setCreating] = useState(false);
  const session = useQuery(sessionQueryOptions());
  const canEdit = roleCan(session.data?.userProfile.role, 'POST /ui/package/info');
  const packages = usePackages({ pageNum: page, numberOfItems: pageSize, name: query });
  usePageInRange(paging, packages);

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('packages.title')}
        description={t('packages.description')}
        add={canEdit ? { label: t('packages.create'), onClick: () => setCreating(true) } : null}
      />
      <SearchField label={t('packages.search')} value={search} onChange={setSearch} />
      {packages.error ? <ErrorAlert>{apiErrorMessage(t, packages.error)}</ErrorAlert> : null}
      <DataTable
        testId="packages-table"
        minWidth={720}
        busy={packages.isFetching}
        caption={t('packages.caption', { count: packages.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('packages.fields.designName'),
          t('packages.fields.companyName'),
          t('packages.fields.version'),
          t('packages.fields.latestBuild'),
          t('packages.fields.dateModified'),
        ]}
        empty={packages.data?.data.length === 0 ? t(paging.narrowed ? 'packages.noMatch' : 'packages.empty') : null}
      >
        {(packages.data?.data ?? []).map((pkg) => (
          <Table.Tr key={pkg.dsiId} data-dsi-id={pkg.dsiId}>
            <Table.Td>
              <Anchor component={Link} to={`/packages/${pkg.dsiId}`} c="var(--manifold-link)">
                {pkg.designName}
              </Anchor>
            </Table.Td>
            <Table.Td>{pkg.companyName}</Table.Td>
            <Table.Td>{pkg.version}</Table.Td>
            <Table.Td>
              {pkg.latestDsiVersion === null ? (
                <Badge variant="light" color="gray" c="var(--manifold-text)">
                  {t('packages.notBuilt')}
                </Badge>
              ) : (
                t('packages.buildNumber', { number: pkg.latestDsiVersion })
              )}
            </Table.Td>
            <Table.Td>
              <time dateTime={pkg.dateModified}>{format(pkg.dateModified)}</time>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(packages.data)} value={page} onChange={setPage} />
      <FormModal opened={creating} onClose={() => setCreating(false)} title={t('packages.createTitle')}>
        {creating ? (
          <PackageDetailsForm
            onCancel={() => setCreating(false)}
            onSaved={(pkg) => {
              alerts.success(t('packages.created', { name: pkg.designName }));
              setCreating(false);
              void navigate(`/packages/${pkg.dsiId}`);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
