import { Button, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconKey, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { IconAction } from '../../../components/icon-action';
import { ListPagination } from '../../../components/list-pagination';
import { Section } from '../../../components/section';
import { useConfirmedActions } from '../../../hooks/use-action-error';
import { alerts } from '../../../lib/alerts';
import { isApiError } from '../../../lib/api-errors';
import { useDateTimeFormat } from '../../../lib/format';
import { useAddSecurityKey, useDeleteSecurityKey, useSecurityKeys } from '../api/security-keys';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

/** The user's security keys (WebAuthn): listed, added through the browser's ceremony, removed. */
export function SecurityKeysCard() {
  const { t } = useTranslation();
  const paging = usePagedSearch({ pageParam: 'keysPage' });
  const { page, setPage } = paging;
  const [name, setName] = useState('');
  const keys = useSecurityKeys(page, pageSize);
  usePageInRange(paging, keys);
  const add = useAddSecurityKey();
  const remove = useDeleteSecurityKey();
  const actions = useConfirmedActions();
  const formatDateTime = useDateTimeFormat();
  const failure = (error: unknown) => (isApiError(error) ? apiErrorMessage(t, error) : t('securityKeys.browserRefused'));

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    actions.clearError();
    add.mutate(name.trim(), {
      onSuccess: (key) => {
        setName('');
        alerts.success(t('securityKeys.added', { name: key.name }));
      },
    });
  };

  return (
    <Section id="security-keys" title={t('securityKeys.title')}>
      <Stack gap="md">
        <Text size="sm">{t('securityKeys.intro')}</Text>
        {keys.error ? <ErrorAlert>{apiErrorMessage(t, keys.error)}</ErrorAlert> : null}
        {add.error ? <ErrorAlert>{failure(add.error)}</ErrorAlert> : null}
        {actions.error ? <ErrorAlert>{actions.error}</ErrorAlert> : null}
        <DataTable
          testId="security-keys-table"
          compact
          minWidth={480}
          busy={keys.isFetching}
          caption={t('securityKeys.caption', { total: keys.data?.totalNumOfItems ?? 0 })}
          columns={[t('securityKeys.name'), t('securityKeys.created'), t('securityKeys.lastUsed'), t('common.actions')]}
          empty={keys.data?.data.length === 0 ? t('securityKeys.empty') : null}
        >
          {(keys.data?.data ?? []).map((key) => (
            <Table.Tr key={key.authenticatorId}>
              <Table.Td>{key.name}</Table.Td>
              <Table.Td>
                <time dateTime={key.createdAt}>{formatDateTime(key.createdAt)}</time>
              </Table.Td>
              <Table.Td>
                {key.lastUsedAt ? (
                  <time dateTime={key.lastUsedAt}>{formatDateTime(key.lastUsedAt)}</time>
                ) : (
                  t('securityKeys.never')
                )}
              </Table.Td>
              <Table.Td>
                <IconAction
                  tooltip={t('common.delete')}
                  label={t('securityKeys.remove', { name: key.name })}
                  icon={IconTrash}
                  color="red"
                  onClick={() =>
                    actions.confirm({
                      title: t('securityKeys.removeTitle'),
                      message: t('securityKeys.removeConfirm', { name: key.name }),
                      onConfirm: () =>
                        remove.mutate(key.authenticatorId, {
                          onSuccess: () => alerts.success(t('securityKeys.removed', { name: key.name })),
                          onError: actions.onError,
                        }),
                    })
                  }
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        {(keys.data?.totalNumOfPages ?? 0) > 1 ? (
          <ListPagination total={keys.data!.totalNumOfPages} value={page} onChange={setPage} />
        ) : null}
        <form onSubmit={submit}>
          <Group align="flex-end" gap="sm">
            <TextInput
              label={t('securityKeys.newName')}
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              maxLength={64}
              required
            />
            <Button type="submit" leftSection={<IconKey size={16} aria-hidden />} loading={add.isPending} disabled={!name.trim()}>
              {t('securityKeys.add')}
            </Button>
          </Group>
        </form>
      </Stack>
    </Section>
  );
}
