import { ActionIcon, Anchor, Badge, Code, Group, Table, Text, Tooltip } from '@mantine/core';
import type { TAuthorization, TAuthorizationState } from '@manifold/contract';
import { IconBan, IconDownload, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { alerts } from '../lib/alerts';
import { useDownloadAuthorization, useRevokeAuthorization, useSendAuthorizations } from '../lib/authorization-actions';
import { useDateTimeFormat } from '../lib/format';
import { apiErrorMessage } from './api-error-message';
import { useConfirm } from './confirm-modal';
import { ErrorAlert } from './error-alert';

const stateColors: Record<TAuthorizationState, string> = {
  authorized: 'blue',
  sent: 'green',
  received: 'teal',
  revoked: 'red',
};

export function AuthorizationStateBadge({ state }: { state: TAuthorizationState }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={stateColors[state]} c="dark.7" data-state={state}>
      {t(`authorizations.states.${state}`)}
    </Badge>
  );
}

/** A short, still unique-looking form of a UUID for tables; the whole id is in the title. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

export interface AuthorizationTableProps {
  authorizations: readonly TAuthorization[];
  /** Shows the order column (the list of every order's authorizations). */
  withOrder?: boolean;
  busy?: boolean;
  /** Caption read by screen readers and shown under the table. */
  caption: string;
}

/** Authorizations with their state and the actions send, revoke (confirmed) and download. */
export function AuthorizationTable({ authorizations, withOrder = false, busy = false, caption }: AuthorizationTableProps) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const confirm = useConfirm();
  const send = useSendAuthorizations();
  const revoke = useRevokeAuthorization();
  const download = useDownloadAuthorization();
  const [error, setError] = useState<string | null>(null);

  const onError = (caught: unknown) => setError(apiErrorMessage(t, caught));

  const sendOne = (authorization: TAuthorization) => {
    setError(null);
    send.mutate(
      { orderId: authorization.orderId, authorizationId: authorization.authorizationId },
      { onSuccess: () => alerts.success(t('authorizations.sent', { id: shortId(authorization.authorizationId) })), onError },
    );
  };

  const confirmRevoke = (authorization: TAuthorization) =>
    confirm({
      title: t('authorizations.revokeTitle'),
      message: t('authorizations.revokeConfirm', {
        id: shortId(authorization.authorizationId),
        quantity: authorization.quantity,
      }),
      confirmLabel: t('authorizations.revoke'),
      onConfirm: () => {
        setError(null);
        revoke.mutate(
          { orderId: authorization.orderId, authorizationId: authorization.authorizationId },
          {
            onSuccess: () => alerts.success(t('authorizations.revoked', { id: shortId(authorization.authorizationId) })),
            onError,
          },
        );
      },
    });

  const save = (authorization: TAuthorization) => {
    setError(null);
    download.mutate({ orderId: authorization.orderId, authorizationId: authorization.authorizationId }, { onError });
  };

  const columns = withOrder ? 10 : 9;

  return (
    <>
      {error ? <ErrorAlert data-testid="authorization-action-error">{error}</ErrorAlert> : null}
      <Table.ScrollContainer minWidth={960}>
        <Table striped highlightOnHover aria-busy={busy} data-testid="authorizations-table">
          <Table.Caption>{caption}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('authorizations.columns.authorizationId')}</Table.Th>
              {withOrder ? <Table.Th scope="col">{t('authorizations.columns.order')}</Table.Th> : null}
              <Table.Th scope="col">{t('authorizations.columns.target')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.quantity')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.state')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.serialNumbers')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.expiration')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.createdBy')}</Table.Th>
              <Table.Th scope="col">{t('authorizations.columns.dateCreated')}</Table.Th>
              <Table.Th scope="col">{t('common.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {authorizations.map((authorization) => {
              const id = shortId(authorization.authorizationId);
              const live = authorization.state !== 'revoked';
              return (
                <Table.Tr
                  key={authorization.authorizationId}
                  data-authorization-id={authorization.authorizationId}
                  data-state={authorization.state}
                >
                  <Table.Td>
                    <Code title={authorization.authorizationId}>{id}</Code>
                  </Table.Td>
                  {withOrder ? (
                    <Table.Td>
                      <Anchor component={Link} to={`/orders/${authorization.orderId}`} c="green.9">
                        {shortId(authorization.orderId)}
                        <Text component="span" size="xs" c="dimmed" ml={4}>
                          {authorization.companyName}
                        </Text>
                      </Anchor>
                    </Table.Td>
                  ) : null}
                  <Table.Td>
                    {authorization.deviceId ? (
                      <Anchor component={Link} to={`/devices/${authorization.deviceId}`} c="green.9">
                        {t('authorizations.machine', { id: shortId(authorization.deviceId) })}
                      </Anchor>
                    ) : (
                      <Text size="sm">{t('authorizations.manage', { id: shortId(authorization.manageId ?? '') })}</Text>
                    )}
                    {authorization.delivery ? (
                      <Text size="xs" c="dimmed">
                        {t('authorizations.delivery', { state: authorization.delivery })}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td data-testid="authorization-quantity">{authorization.quantity}</Table.Td>
                  <Table.Td>
                    <AuthorizationStateBadge state={authorization.state} />
                  </Table.Td>
                  <Table.Td>
                    {authorization.serialNumbers
                      ? t('authorizations.serialRange', {
                          first: authorization.serialNumbers.first,
                          last: authorization.serialNumbers.last,
                        })
                      : '—'}
                  </Table.Td>
                  <Table.Td>
                    {authorization.expiration ? (
                      <time dateTime={authorization.expiration}>{format(authorization.expiration)}</time>
                    ) : (
                      t('orders.neverExpires')
                    )}
                  </Table.Td>
                  <Table.Td>{authorization.userID}</Table.Td>
                  <Table.Td>
                    <time dateTime={authorization.dateCreated}>{format(authorization.dateCreated)}</time>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Tooltip label={t('authorizations.send')}>
                        <ActionIcon
                          variant="subtle"
                          color="green"
                          disabled={authorization.state !== 'authorized'}
                          loading={send.isPending && send.variables.authorizationId === authorization.authorizationId}
                          aria-label={t('authorizations.sendOne', { id })}
                          onClick={() => sendOne(authorization)}
                        >
                          <IconSend size={16} aria-hidden />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label={t('authorizations.revoke')}>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          disabled={!live}
                          aria-label={t('authorizations.revokeOne', { id })}
                          onClick={() => confirmRevoke(authorization)}
                        >
                          <IconBan size={16} aria-hidden />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label={t('authorizations.download')}>
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          disabled={!live}
                          aria-label={t('authorizations.downloadOne', { id })}
                          onClick={() => save(authorization)}
                        >
                          <IconDownload size={16} aria-hidden />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
            {authorizations.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={columns}>
                  <Text c="dimmed" ta="center">
                    {t('authorizations.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
