import { Anchor, Badge, Button, Group, Modal, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../../components/list-pagination';
import { Link, useNavigate } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { usePackages } from '../api/get-packages';
import { PackageDetailsForm } from '../components/package-details-form';
import { ErrorAlert } from '../../../components/error-alert';

const pageSize = 10;

/** Design packages: paged list filtered by name; ADMIN creates them. */
export function PackagesRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const format = useDateTimeFormat();
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [debouncedName] = useDebouncedValue(name, 300);
  const [creating, setCreating] = useState(false);
  const session = useQuery(sessionQueryOptions());
  const canEdit = roleCan(session.data?.userProfile.role, 'POST /ui/package/info');
  const packages = usePackages({ pageNum: page, numberOfItems: pageSize, name: debouncedName.trim() || undefined });
  const totalPages = Math.max(1, packages.data?.totalNumOfPages ?? 1);

  return (
    <Stack gap="lg">
      <PageHead title={t('packages.title')} description={t('packages.description')} />
      <Group justify="space-between">
        <Title order={1}>{t('packages.title')}</Title>
        {canEdit ? (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
            {t('packages.create')}
          </Button>
        ) : null}
      </Group>
      <TextInput
        label={t('packages.search')}
        leftSection={<IconSearch size={16} aria-hidden />}
        value={name}
        maw={360}
        onChange={(event) => {
          setName(event.currentTarget.value);
          setPage(1);
        }}
      />
      {packages.error ? <ErrorAlert>{apiErrorMessage(t, packages.error)}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover aria-busy={packages.isFetching} data-testid="packages-table">
          <Table.Caption>{t('packages.caption', { total: packages.data?.totalNumOfItems ?? 0 })}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('packages.fields.designName')}</Table.Th>
              <Table.Th scope="col">{t('packages.fields.companyName')}</Table.Th>
              <Table.Th scope="col">{t('packages.fields.version')}</Table.Th>
              <Table.Th scope="col">{t('packages.fields.latestBuild')}</Table.Th>
              <Table.Th scope="col">{t('packages.fields.dateModified')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(packages.data?.data ?? []).map((pkg) => (
              <Table.Tr key={pkg.dsiId} data-dsi-id={pkg.dsiId}>
                <Table.Td>
                  <Anchor component={Link} to={`/packages/${pkg.dsiId}`} c="green.9">
                    {pkg.designName}
                  </Anchor>
                </Table.Td>
                <Table.Td>{pkg.companyName}</Table.Td>
                <Table.Td>{pkg.version}</Table.Td>
                <Table.Td>
                  {pkg.latestDsiVersion === null ? (
                    <Badge variant="light" color="gray" c="gray.9">
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
            {packages.data && packages.data.data.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text c="dimmed" ta="center">
                    {t('packages.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListPagination total={totalPages} value={page} onChange={setPage} />
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title={t('packages.createTitle')}
        size="lg"
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
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
      </Modal>
    </Stack>
  );
}
