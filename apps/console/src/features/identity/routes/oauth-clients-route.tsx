import { Alert, Button, Code, CopyButton, Group, Stack, Table, Text } from '@mantine/core';
import type { TOauthClient, TOauthClientCreated } from '@manifold/contract';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { IconAction } from '../../../components/icon-action';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { alerts } from '../../../lib/alerts';
import { pageCount } from '../../../lib/paging';
import { useDeleteOauthClient, useOauthClients } from '../api/oauth-clients';
import { OauthClientForm } from '../components/oauth-client-form';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** OAuth clients (ADMIN): integrations that call the API with client-credentials tokens; the secret is shown once. */
export function OauthClientsRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<TOauthClientCreated | null>(null);
  const clients = useOauthClients({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, clients);
  const remove = useDeleteOauthClient();

  const confirmDelete = (client: TOauthClient) =>
    confirm({
      title: t('identity.clients.deleteTitle'),
      message: t('identity.clients.deleteConfirm', { clientId: client.clientId }),
      onConfirm: () =>
        remove.mutate(
          { clientId: client.clientId },
          {
            onSuccess: () => alerts.success(t('identity.clients.deleted', { clientId: client.clientId })),
            onError: (error) => alerts.error(apiErrorMessage(t, error)),
          },
        ),
    });

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('identity.clients.title')}
        description={t('identity.clients.description')}
        add={{ label: t('identity.clients.add'), onClick: () => setAdding(true) }}
      />
      {clients.error ? <ErrorAlert>{apiErrorMessage(t, clients.error)}</ErrorAlert> : null}
      <DataTable
        testId="oauth-clients-table"
        minWidth={720}
        busy={clients.isFetching}
        caption={t('identity.clients.caption', { count: clients.data?.totalNumOfItems ?? 0 })}
        columns={[
          t('identity.clients.clientId'),
          t('identity.clients.authorizedGrantTypes'),
          t('identity.clients.authorities'),
          t('identity.clients.scope'),
          t('identity.clients.accessTokenValidity'),
          t('common.actions'),
        ]}
        empty={clients.data?.data.length === 0 ? t('identity.clients.empty') : null}
      >
        {(clients.data?.data ?? []).map((client) => (
          <Table.Tr key={client.clientId} data-client={client.clientId}>
            <Table.Td>{client.clientId}</Table.Td>
            <Table.Td>{client.authorizedGrantTypes}</Table.Td>
            <Table.Td>{client.authorities}</Table.Td>
            <Table.Td>{client.scope}</Table.Td>
            <Table.Td>{client.accessTokenValidity}</Table.Td>
            <Table.Td>
              <IconAction
                tooltip={t('common.delete')}
                label={t('identity.clients.deleteOne', { clientId: client.clientId })}
                icon={IconTrash}
                color="red"
                onClick={() => confirmDelete(client)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(clients.data)} value={page} onChange={setPage} />
      <FormModal opened={adding} onClose={() => setAdding(false)} title={t('identity.clients.addTitle')}>
        {adding ? (
          <OauthClientForm
            onCancel={() => setAdding(false)}
            onDone={(client) => {
              setAdding(false);
              setCreated(client);
            }}
          />
        ) : null}
      </FormModal>
      <FormModal opened={created !== null} onClose={() => setCreated(null)} title={t('identity.clients.secretTitle')}>
        {created ? (
          <Stack data-testid="client-secret">
            <Alert color="yellow" variant="light">
              <Text size="sm">{t('identity.clients.secretOnce', { clientId: created.clientId })}</Text>
            </Alert>
            <Code block>{created.clientSecret}</Code>
            <Group justify="flex-end">
              <CopyButton value={created.clientSecret}>
                {({ copied, copy }) => (
                  <Button variant="default" onClick={copy}>
                    {copied ? t('identity.clients.copied') : t('identity.clients.copy')}
                  </Button>
                )}
              </CopyButton>
              <Button onClick={() => setCreated(null)}>{t('common.close')}</Button>
            </Group>
          </Stack>
        ) : null}
      </FormModal>
    </Stack>
  );
}
