import { Anchor, Badge, Code, Group, Table, Text } from '@mantine/core';
import type { TAuthorization, TAuthorizationState } from '@manifold/contract';
import { IconBan, IconDownload, IconSend } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { alerts } from '../lib/alerts';
import { useDownloadAuthorization, useRevokeAuthorization, useSendAuthorizations } from '../lib/authorization-actions';
import { useDateTimeFormat } from '../lib/format';
import { useConfirmedActions } from '../hooks/use-action-error';
import { DataTable } from './data-table';
import { ErrorAlert } from './error-alert';
import { IconAction } from './icon-action';

const stateColors: Record<TAuthorizationState, string> = {
  authorized: 'blue',
  sent: 'green',
  received: 'teal',
  revoked: 'red',
};

export function AuthorizationStateBadge({ state }: { state: TAuthorizationState }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={stateColors[state]} c="var(--manifold-text)" data-state={state}>
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
  /** The list is narrowed by filters: an empty one says nothing matches them. */
  filtered?: boolean;
}

/** Authorizations with their state and the actions send, revoke (confirmed) and download. */
export function AuthorizationTable({
  authorizations,
  withOrder = false,
  busy = false,
  caption,
  filtered = false,
}: AuthorizationTableProps) {
  const { t } = useTranslation();
  const format = useDateTimeFormat();
  const send = useSendAuthorizations();
  const revoke = useRevokeAuthorization();
  const download = useDownloadAuthorization();
  const { error, clearError, onError, confirm } = useConfirmedActions();

  const sendOne = (authorization: TAuthorization) => {
    clearError();
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
      onConfirm: () =>
        revoke.mutate(
          { orderId: authorization.orderId, authorizationId: authorization.authorizationId },
          {
            onSuccess: () => alerts.success(t('authorizations.revoked', { id: shortId(authorization.authorizationId) })),
            onError,
          },
        ),
    });

  const save = (authorization: TAuthorization) => {
    clearError();
    download.mutate({ orderId: authorization.orderId, authorizationId: authorization.authorizationId }, { onError });
  };

  return (
    <>
      {error ? <ErrorAlert data-testid="authorization-action-error">{error}</ErrorAlert> : null}
      <DataTable
        testId="authorizations-table"
        minWidth={960}
        busy={busy}
        caption={caption}
        columns={[
          t('authorizations.columns.authorizationId'),
          withOrder ? t('authorizations.columns.order') : null,
          t('authorizations.columns.target'),
          t('authorizations.columns.quantity'),
          t('authorizations.columns.state'),
          t('authorizations.columns.serialNumbers'),
          t('authorizations.columns.expiration'),
          t('authorizations.columns.createdBy'),
          t('authorizations.columns.dateCreated'),
          t('common.actions'),
        ]}
        empty={authorizations.length === 0 ? t(filtered ? 'authorizations.noMatch' : 'authorizations.empty') : null}
      >
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
                  <Anchor component={Link} to={`/orders/${authorization.orderId}`} c="var(--manifold-link)">
                    {shortId(authorization.orderId)}
                    <Text component="span" size="xs" c="dimmed" ml={4}>
                      {authorization.companyName}
                    </Text>
                  </Anchor>
                </Table.Td>
              ) : null}
              <Table.Td>
                {authorization.deviceId ? (
                  <Anchor component={Link} to={`/devices/${authorization.deviceId}`} c="var(--manifold-link)">
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
                  <IconAction
                    tooltip={t('authorizations.send')}
                    label={t('authorizations.sendOne', { id })}
                    icon={IconSend}
                    color="green"
                    disabled={authorization.state !== 'authorized'}
                    loading={send.isPending && send.variables.authorizationId === authorization.authorizationId}
                    onClick={() => sendOne(authorization)}
                  />
                  <IconAction
                    tooltip={t('authorizations.revoke')}
                    label={t('authorizations.revokeOne', { id })}
                    icon={IconBan}
                    color="red"
                    disabled={!live}
                    onClick={() => confirmRevoke(authorization)}
                  />
                  <IconAction
                    tooltip={t('authorizations.download')}
                    label={t('authorizations.downloadOne', { id })}
                    icon={IconDownload}
                    disabled={!live}
                    onClick={() => save(authorization)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </DataTable>
    </>
  );
}
