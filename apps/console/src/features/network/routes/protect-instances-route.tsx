import { Alert, Button, Code, CopyButton, Group, Stack, Table, Text } from '@mantine/core';
import type { TProtectTokens } from '@manifold/contract';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { alerts } from '../../../lib/alerts';
import { useDateTimeFormat } from '../../../lib/format';
import { pageCount } from '../../../lib/paging';
import { useProtectInstances, useProtectTokens } from '../api/registrations';
import { RegistrationActions } from '../components/registration-actions';
import { RegistrationStateBadge } from '../components/registration-state-badge';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/**
 * Protect instances (ADMIN): a design owner's Protect registers with a token pair made here. The
 * pair is shown once; the server keeps only the SHA-256 of the second token.
 */
export function ProtectInstancesRoute() {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [tokens, setTokens] = useState<TProtectTokens | null>(null);
  const instances = useProtectInstances({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, instances);
  const create = useProtectTokens();

  const makePair = () =>
    create.mutate(undefined, { onSuccess: setTokens, onError: (error) => alerts.error(apiErrorMessage(t, error)) });

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('network.protect.title')}
        description={t('network.protect.description')}
        add={{ label: t('network.protect.add'), onClick: makePair }}
      />
      {instances.error ? <ErrorAlert>{apiErrorMessage(t, instances.error)}</ErrorAlert> : null}
      <DataTable
        testId="protect-instances-table"
        minWidth={900}
        busy={instances.isFetching}
        caption={t('network.caption', { count: instances.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('network.protect.name'),
          t('network.protect.protectId'),
          t('network.protect.madeBy'),
          t('network.state'),
          t('network.created'),
          t('common.actions'),
        ]}
        empty={instances.data?.data.length === 0 ? t('network.protect.empty') : null}
      >
        {(instances.data?.data ?? []).map((instance) => {
          const name = instance.fss ? instance.name : instance.protectId;
          return (
            <Table.Tr key={instance.id} data-registration-id={instance.id}>
              <Table.Td>
                {instance.fss ? (
                  instance.name
                ) : (
                  <Text size="sm" c="dimmed">
                    {t('network.protect.unused')}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Code>{instance.protectId}</Code>
              </Table.Td>
              <Table.Td>{instance.userId}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <RegistrationStateBadge state={instance.registrationState} />
              </Table.Td>
              <Table.Td>
                <time dateTime={instance.dateCreated}>{format(instance.dateCreated)}</time>
              </Table.Td>
              <Table.Td>
                <RegistrationActions
                  kind="protect"
                  id={instance.id}
                  name={name}
                  state={instance.registrationState}
                  undecidable={instance.fss ? null : t('network.protect.notRegisteredYet')}
                />
              </Table.Td>
            </Table.Tr>
          );
        })}
      </DataTable>
      <ListPagination total={pageCount(instances.data)} value={page} onChange={setPage} />
      <FormModal opened={tokens !== null} onClose={() => setTokens(null)} title={t('network.protect.tokensTitle')}>
        {tokens ? <TokenPair tokens={tokens} onClose={() => setTokens(null)} /> : null}
      </FormModal>
    </Stack>
  );
}

/** The new pair with a copy button each, and the warning that it is not shown again. */
export function TokenPair({ tokens, onClose }: { tokens: TProtectTokens; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Stack data-testid="protect-tokens">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />}>
        <Text size="sm" fw={700}>
          {t('network.protect.shownOnce')}
        </Text>
        <Text size="sm">{t('network.protect.shownOnceHelp')}</Text>
      </Alert>
      {(['token1', 'token2'] as const).map((key) => (
        <Stack key={key} gap={4}>
          <Text size="sm" fw={500} id={`protect-${key}`}>
            {t(`network.protect.${key}`)}
          </Text>
          <Group wrap="nowrap" align="flex-start">
            <Code block style={{ flex: 1, wordBreak: 'break-all' }} data-token={key}>
              {tokens[key]}
            </Code>
            <CopyButton value={tokens[key]}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy} aria-label={t(`network.protect.copy.${key}`)}>
                  {copied ? t('network.protect.copied') : t('network.protect.copyShort')}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Stack>
      ))}
      <Group justify="flex-end">
        <Button onClick={onClose}>{t('network.protect.done')}</Button>
      </Group>
    </Stack>
  );
}
