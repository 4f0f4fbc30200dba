import { Badge, Stack, Table, Text } from '@mantine/core';
import type { TSsoProvider } from '@manifold/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormModal } from '../../../components/form-modal';
import { ListHeader } from '../../../components/list-header';
import { EditDeleteActions } from '../../../components/row-actions';
import { alerts } from '../../../lib/alerts';
import { useDeleteSsoProvider, useSsoConfig } from '../api/sso-providers';
import { SsoProviderForm } from '../components/sso-provider-form';

type Editing = { mode: 'add' } | { mode: 'edit'; provider: TSsoProvider } | null;

/** Identity providers (ADMIN): single sign-on with OpenID Connect or SAML 2.0, what is in force (`GET admin/sso`). */
export function SsoProvidersRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [editing, setEditing] = useState<Editing>(null);
  const config = useSsoConfig();
  const remove = useDeleteSsoProvider();

  const confirmDelete = (provider: TSsoProvider) =>
    confirm({
      title: t('identity.providers.deleteTitle'),
      message: t('identity.providers.deleteConfirm', { name: provider.name }),
      onConfirm: () =>
        remove.mutate(
          { id: provider.id },
          {
            onSuccess: () => alerts.success(t('identity.providers.deleted', { name: provider.name })),
            onError: (error) => alerts.error(apiErrorMessage(t, error)),
          },
        ),
    });

  const providers = config.data?.data ?? [];
  return (
    <Stack gap="lg">
      <ListHeader
        title={t('identity.providers.title')}
        description={t('identity.providers.description')}
        add={{ label: t('identity.providers.add'), onClick: () => setEditing({ mode: 'add' }) }}
      />
      {config.error ? <ErrorAlert>{apiErrorMessage(t, config.error)}</ErrorAlert> : null}
      {config.data ? (
        <Text size="sm" c="dimmed" data-testid="sso-in-force">
          {t('identity.providers.inForce', {
            entityId: config.data.samlEntityId,
            audience: config.data.jwtAudience,
            tokenEndpoint: config.data.tokenEndpoint,
          })}
        </Text>
      ) : null}
      <DataTable
        testId="sso-providers-table"
        minWidth={720}
        busy={config.isFetching}
        caption={t('identity.providers.caption', { count: providers.length })}
        columns={[
          t('identity.providers.name'),
          t('identity.providers.connection'),
          t('identity.providers.domain'),
          t('identity.providers.defaultRole'),
          t('identity.providers.status'),
          t('common.actions'),
        ]}
        empty={config.data && providers.length === 0 ? t('identity.providers.empty') : null}
      >
        {providers.map((provider) => (
          <Table.Tr key={provider.id} data-provider={provider.name}>
            <Table.Td>{provider.name}</Table.Td>
            <Table.Td>{provider.connection === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'}</Table.Td>
            <Table.Td>{provider.domain}</Table.Td>
            <Table.Td>{t(`roles.${provider.defaultRole}`)}</Table.Td>
            <Table.Td>
              <Badge
                variant="light"
                color={provider.enabled ? 'green' : 'gray'}
                c={provider.enabled ? 'var(--manifold-success)' : 'var(--manifold-text)'}
              >
                {provider.enabled ? t('identity.providers.on') : t('identity.providers.off')}
              </Badge>
            </Table.Td>
            <Table.Td>
              <EditDeleteActions
                editLabel={t('identity.providers.editOne', { name: provider.name })}
                deleteLabel={t('identity.providers.deleteOne', { name: provider.name })}
                onEdit={() => setEditing({ mode: 'edit', provider })}
                onDelete={() => confirmDelete(provider)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? t('identity.providers.editTitle') : t('identity.providers.addTitle')}
      >
        {editing ? (
          <SsoProviderForm
            key={editing.mode === 'edit' ? editing.provider.id : 'new'}
            provider={editing.mode === 'edit' ? editing.provider : undefined}
            onCancel={() => setEditing(null)}
            onDone={(provider) => {
              alerts.success(t('identity.providers.saved', { name: provider.name }));
              setEditing(null);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
