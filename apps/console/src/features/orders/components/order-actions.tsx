import { Button, Checkbox, Group, Stack } from '@mantine/core';
import type { TOrderDetail } from '@manifold/contract';
import { IconArchive, IconArchiveOff, IconBan, IconKey, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { alerts } from '../../../lib/alerts';
import { useSendAuthorizations } from '../../../lib/authorization-actions';
import { useArchiveOrders } from '../api/archive-orders';
import { useRevokeOrder } from '../api/revoke-order';
import { ConfirmDialog, useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';

/** Authorize, send all, archive or restore, revoke (with or without its authorizations): each confirmed. */
export function OrderActions({ order }: { order: TOrderDetail }) {
  const { t } = useTranslation();
  const openConfirm = useConfirm();
  const archive = useArchiveOrders();
  const revoke = useRevokeOrder();
  const send = useSendAuthorizations();
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState(false);
  const [includeAuthorized, setIncludeAuthorized] = useState(true);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const number = order.orderNumber;
  const waiting = order.authorizations.data.filter((authorization) => authorization.state === 'authorized').length;

  const confirm = (title: string, message: string, confirmLabel: string, color: string, action: () => void) =>
    openConfirm({
      title,
      message,
      confirmLabel,
      color,
      onConfirm: () => {
        setError(null);
        action();
      },
    });

  const toggleArchive = () => {
    const archiving = !order.archive;
    confirm(
      archiving ? t('orders.actions.archiveTitle') : t('orders.actions.restoreTitle'),
      archiving ? t('orders.actions.archiveConfirm', { number }) : t('orders.actions.restoreConfirm', { number }),
      archiving ? t('orders.actions.archive') : t('orders.actions.restore'),
      archiving ? 'gray.8' : 'green.8',
      () =>
        archive.mutate(
          { orderIds: [order.orderId], archive: archiving },
          {
            onSuccess: () =>
              alerts.success(archiving ? t('orders.actions.archived', { number }) : t('orders.actions.restored', { number })),
            onError: (caught) => setError(apiErrorMessage(t, caught)),
          },
        ),
    );
  };

  const sendAll = () =>
    confirm(
      t('orders.actions.sendAllTitle'),
      t('orders.actions.sendAllConfirm', { count: waiting, number }),
      t('orders.actions.sendAll'),
      'green.8',
      () =>
        send.mutate(
          { orderId: order.orderId },
          {
            onSuccess: (result) => alerts.success(t('orders.actions.sentAll', { count: result.data.length })),
            onError: (caught) => setError(apiErrorMessage(t, caught)),
          },
        ),
    );

  const submitRevoke = () => {
    setRevokeError(null);
    revoke.mutate(
      { orderId: order.orderId, includeAuthorized },
      {
        onSuccess: () => {
          setRevoking(false);
          alerts.success(t('orders.actions.revoked', { number }));
        },
        onError: (caught) => setRevokeError(apiErrorMessage(t, caught)),
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
        {waiting > 0 ? (
          <Button variant="default" leftSection={<IconSend size={16} aria-hidden />} loading={send.isPending} onClick={sendAll}>
            {t('orders.actions.sendAllCount', { count: waiting })}
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
            color="red.9"
            leftSection={<IconBan size={16} aria-hidden />}
            onClick={() => {
              setRevokeError(null);
              setRevoking(true);
            }}
          >
            {t('orders.actions.revoke')}
          </Button>
        ) : null}
      </Group>
      <ConfirmDialog
        opened={revoking}
        onClose={() => setRevoking(false)}
        title={t('orders.actions.revokeTitle')}
        message={t('orders.actions.revokeConfirm', { number })}
        error={revokeError}
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
