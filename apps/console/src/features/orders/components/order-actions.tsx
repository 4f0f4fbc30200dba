import { Button, Checkbox, Group, Stack } from '@mantine/core';
import type { TAuthorization, TOrderDetail } from '@manifold/contract';
import { IconArchive, IconArchiveOff, IconBan, IconKey, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { alerts } from '../../../lib/alerts';
import { useSendAuthorizations } from '../../../lib/authorization-actions';
import { useArchiveOrders } from '../api/archive-orders';
import { useRevokeOrder } from '../api/revoke-order';
import { ConfirmDialog } from '../../../components/confirm-modal';
import { useConfirmDialog, useConfirmedActions } from '../../../hooks/use-action-error';
import { ErrorAlert } from '../../../components/error-alert';

/**
 * The authorizations waiting to be sent (authorized, not expired) on the page the order screen
 * shows, and whether that is all of the order's (`counted`: one page holds them all). An order
 * of several pages may have more waiting on the others: "send all" then offers itself without a
 * count (the server sends every live one of the order).
 */
function waitingToSend(authorizations: TOrderDetail['authorizations'], now = Date.now()) {
  const waiting = authorizations.data.filter(
    (authorization) =>
      authorization.state === 'authorized' && (authorization.expiration === null || Date.parse(authorization.expiration) > now),
  ).length;
  return { waiting, counted: authorizations.totalNumOfPages <= 1 };
}

/**
 * How many of the order's authorizations a send-all left offered to their machines (`sent`): the
 * answer lists every live one, including those a machine had already received.
 */
function offered(sent: readonly { state: TAuthorization['state'] }[]) {
  return sent.filter((authorization) => authorization.state === 'sent').length;
}

/** Authorize, send all, archive or restore, revoke (with or without its authorizations): each confirmed. */
export function OrderActions({ order }: { order: TOrderDetail }) {
  const { t } = useTranslation();
  const archive = useArchiveOrders();
  const revoke = useRevokeOrder();
  const send = useSendAuthorizations();
  const { error, onError, confirm } = useConfirmedActions();
  const revoking = useConfirmDialog();
  const [includeAuthorized, setIncludeAuthorized] = useState(true);
  const number = order.orderNumber;
  const { waiting, counted } = waitingToSend(order.authorizations);

  const toggleArchive = () => {
    const archiving = !order.archive;
    confirm({
      title: archiving ? t('orders.actions.archiveTitle') : t('orders.actions.restoreTitle'),
      message: archiving ? t('orders.actions.archiveConfirm', { number }) : t('orders.actions.restoreConfirm', { number }),
      confirmLabel: archiving ? t('orders.actions.archive') : t('orders.actions.restore'),
      color: archiving ? 'gray.8' : 'green.8',
      onConfirm: () =>
        archive.mutate(
          { orderIds: [order.orderId], archive: archiving },
          {
            onSuccess: () =>
              alerts.success(archiving ? t('orders.actions.archived', { number }) : t('orders.actions.restored', { number })),
            onError,
          },
        ),
    });
  };

  const sendAll = () =>
    confirm({
      title: t('orders.actions.sendAllTitle'),
      message: counted
        ? t('orders.actions.sendAllConfirm', { count: waiting, number })
        : t('orders.actions.sendAllConfirmUncounted', { number }),
      confirmLabel: t('orders.actions.sendAll'),
      color: 'green.8',
      onConfirm: () =>
        send.mutate(
          { orderId: order.orderId },
          { onSuccess: (result) => alerts.success(t('orders.actions.sentAll', { count: offered(result.data) })), onError },
        ),
    });

  const submitRevoke = () => {
    revoking.clearError();
    revoke.mutate(
      { orderId: order.orderId, includeAuthorized },
      {
        onSuccess: () => {
          revoking.close();
          alerts.success(t('orders.actions.revoked', { number }));
        },
        onError: revoking.onError,
      },
    );
  };

  return (
    <Stack>
      {error ? <ErrorAlert data-testid="order-action-error">{error}</ErrorAlert> : null}
      <Group>
        {!order.revoked ? (
          <Button
            component={Link}
            to={`/orders/${order.orderId}/authorize`}
            leftSection={<IconKey size={16} aria-hidden />}
            disabled={order.remainingQuantity <= 0}
          >
            {t('orders.actions.authorize')}
          </Button>
        ) : null}
        {waiting > 0 || !counted ? (
          <Button variant="default" leftSection={<IconSend size={16} aria-hidden />} loading={send.isPending} onClick={sendAll}>
            {counted ? t('orders.actions.sendAllCount', { count: waiting }) : t('orders.actions.sendAllWaiting')}
          </Button>
        ) : null}
        <Button
          variant="default"
          leftSection={order.archive ? <IconArchiveOff size={16} aria-hidden /> : <IconArchive size={16} aria-hidden />}
          loading={archive.isPending}
          onClick={toggleArchive}
        >
          {order.archive ? t('orders.actions.restore') : t('orders.actions.archive')}
        </Button>
        {!order.revoked ? (
          <Button
            variant="outline"
            color="var(--manifold-danger)"
            leftSection={<IconBan size={16} aria-hidden />}
            onClick={revoking.open}
          >
            {t('orders.actions.revoke')}
          </Button>
        ) : null}
      </Group>
      <ConfirmDialog
        opened={revoking.opened}
        onClose={revoking.close}
        title={t('orders.actions.revokeTitle')}
        message={t('orders.actions.revokeConfirm', { number })}
        error={revoking.error}
        confirmLabel={t('orders.actions.revoke')}
        pending={revoke.isPending}
        onConfirm={submitRevoke}
      >
        <Checkbox
          label={t('orders.actions.includeAuthorized')}
          description={t('orders.actions.includeAuthorizedHelp')}
          checked={includeAuthorized}
          onChange={(event) => setIncludeAuthorized(event.currentTarget.checked)}
        />
      </ConfirmDialog>
    </Stack>
  );
}
