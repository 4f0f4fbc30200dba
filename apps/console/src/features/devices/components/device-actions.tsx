import { Button, Checkbox, Group, Stack } from '@mantine/core';
import type { TDevice } from '@manifold/contract';
import { IconBan, IconCheck, IconPlayerPlay, IconTrash, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { alerts } from '../../../lib/alerts';
import { isApiError } from '../../../lib/api-errors';
import { useApproveDevice } from '../api/approve-device';
import { useDeleteDevice } from '../api/delete-device';
import { useDisableDevice } from '../api/disable-device';
import { ConfirmDialog } from '../../../components/confirm-modal';
import { useConfirmDialog, useConfirmedActions } from '../../../hooks/use-action-error';
import { ErrorAlert } from '../../../components/error-alert';

export interface DeviceActionsProps {
  device: TDevice;
  onDeleted: () => void;
}

/** Approve, reject, disable or enable, delete: each behind a confirmation; errors shown here. */
export function DeviceActions({ device, onDeleted }: DeviceActionsProps) {
  const { t } = useTranslation();
  const approve = useApproveDevice();
  const disable = useDisableDevice();
  const remove = useDeleteDevice();
  const { error, onError, confirm } = useConfirmedActions();
  const deleting = useConfirmDialog();
  const [force, setForce] = useState(false);
  const [needsForce, setNeedsForce] = useState(false);
  const name = device.deviceIdentity.name;

  const decide = (approved: boolean) =>
    confirm({
      title: approved ? t('devices.actions.approveTitle') : t('devices.actions.rejectTitle'),
      message: approved ? t('devices.actions.approveConfirm', { name }) : t('devices.actions.rejectConfirm', { name }),
      confirmLabel: approved ? t('devices.actions.approve') : t('devices.actions.reject'),
      color: approved ? 'green.8' : 'red.9',
      onConfirm: () =>
        approve.mutate(
          { deviceId: device.deviceId, approve: approved },
          {
            onSuccess: () =>
              alerts.success(approved ? t('devices.actions.approved', { name }) : t('devices.actions.rejected', { name })),
            onError,
          },
        ),
    });

  const toggleDisabled = () => {
    const disabled = !device.disabled;
    confirm({
      title: disabled ? t('devices.actions.disableTitle') : t('devices.actions.enableTitle'),
      message: disabled ? t('devices.actions.disableConfirm', { name }) : t('devices.actions.enableConfirm', { name }),
      confirmLabel: disabled ? t('devices.actions.disable') : t('devices.actions.enable'),
      color: disabled ? 'red.9' : 'green.8',
      onConfirm: () =>
        disable.mutate(
          { deviceId: device.deviceId, disabled },
          {
            onSuccess: () =>
              alerts.success(disabled ? t('devices.actions.disabled', { name }) : t('devices.actions.enabled', { name })),
            onError,
          },
        ),
    });
  };

  const submitDelete = () => {
    deleting.clearError();
    remove.mutate(
      { deviceId: device.deviceId, forceDelete: force },
      {
        onSuccess: () => {
          deleting.close();
          alerts.success(t('devices.actions.deleted', { name }));
          onDeleted();
        },
        onError: (caught) => {
          if (isApiError(caught) && caught.errorToken === 'deviceHasLiveAuthorizations') setNeedsForce(true);
          deleting.onError(caught);
        },
      },
    );
  };

  const pending = device.registrationState === 'Pending';

  return (
    <Stack>
      {error ? <ErrorAlert data-testid="device-action-error">{error}</ErrorAlert> : null}
      <Group>
        {pending ? (
          <>
            <Button leftSection={<IconCheck size={16} aria-hidden />} loading={approve.isPending} onClick={() => decide(true)}>
              {t('devices.actions.approve')}
            </Button>
            <Button
              variant="default"
              leftSection={<IconX size={16} aria-hidden />}
              loading={approve.isPending}
              onClick={() => decide(false)}
            >
              {t('devices.actions.reject')}
            </Button>
          </>
        ) : null}
        <Button
          variant="default"
          leftSection={device.disabled ? <IconPlayerPlay size={16} aria-hidden /> : <IconBan size={16} aria-hidden />}
          loading={disable.isPending}
          onClick={toggleDisabled}
        >
          {device.disabled ? t('devices.actions.enable') : t('devices.actions.disable')}
        </Button>
        <Button
          variant="default"
          leftSection={<IconTrash size={16} aria-hidden />}
          onClick={() => {
            setForce(false);
            setNeedsForce(false);
            deleting.open();
          }}
        >
          {t('devices.actions.delete')}
        </Button>
      </Group>
      <ConfirmDialog
        opened={deleting.opened}
        onClose={deleting.close}
        title={t('devices.actions.deleteTitle')}
        message={t('devices.actions.deleteConfirm', { name })}
        error={deleting.error}
        confirmLabel={t('devices.actions.delete')}
        pending={remove.isPending}
        onConfirm={submitDelete}
      >
        <Checkbox
          label={t('devices.actions.forceDelete')}
          description={needsForce ? t('devices.actions.forceDeleteNeeded') : t('devices.actions.forceDeleteHint')}
          checked={force}
          onChange={(event) => setForce(event.currentTarget.checked)}
        />
      </ConfirmDialog>
    </Stack>
  );
}
