import { Code, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useDatabaseConfig } from '../api/get-database-config';
import { ErrorAlert } from '../../../components/error-alert';

/** The running database; switching is done with DATABASE_URL, the console cannot change it. */
export function DatabaseStep() {
  const { t } = useTranslation();
  const database = useDatabaseConfig();
  const rows: [string, string | number | null | undefined][] = [
    [t('setup.database.type'), database.data ? t(`setup.database.types.${database.data.databaseType}`) : undefined],
    [t('setup.database.host'), database.data?.databaseHost],
    [t('setup.database.port'), database.data?.databasePort],
    [t('setup.database.name'), database.data?.databaseName],
    [t('setup.database.user'), database.data?.databaseUser],
  ];
  return (
    <Stack gap="sm">
      {database.error ? (
        <ErrorAlert>{apiErrorMessage(t, database.error)}</ErrorAlert>
      ) : (
        <Table variant="vertical" withTableBorder data-testid="database-config">
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th w={180}>{label}</Table.Th>
                <Table.Td>
                  {database.isPending ? <Skeleton h={14} w={140} /> : value === null || value === undefined ? '—' : String(value)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Text size="sm">
        {t('setup.database.switchBefore')} <Code>DATABASE_URL</Code> {t('setup.database.switchAfter')}
      </Text>
      <Text size="sm" c="dimmed">
        {t('setup.database.examples')} <Code>sqlite:/var/lib/manifold/manifold.db</Code>,{' '}
        <Code>postgres://user@host:5432/manifold</Code>, <Code>mysql://user@host:3306/manifold</Code>
      </Text>
    </Stack>
  );
}
